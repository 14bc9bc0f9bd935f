import { createHash } from 'node:crypto';
import { type RewardComponent } from './components';

/**
 * Whether `component` is labelled for this turn. Deterministic, so retries and replays pick the same turns, and
 * keyed by component, so the samples of different components are independent.
 */
export function sampledFor(turnId: string, component: RewardComponent, rate: number): boolean {
  const hex = createHash('sha256').update(`${component}:${turnId}`).digest('hex').slice(0, 8);
  return parseInt(hex, 16) / 2 ** 32 < rate;
}
