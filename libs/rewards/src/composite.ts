import { COMPONENTS, type RewardComponent } from './components';
import { type RewardConfig } from './config';

export interface CompositeReward {
  value: number;
  version: string;
  /** The weights actually used: the configured ones renormalised over the components present (they sum to 1). */
  weights: Partial<Record<RewardComponent, number>>;
}

/**
 * Weighted mean of the components present. The components are on different scales (empathy and humanlike 0..1,
 * live emotion and implicit -1..1), so the composite is a product choice, not a measurement: store the components,
 * and let data teams recompute composites from them under a new `version` when the weights change.
 * Throws when no component is present, a value is not finite, or every present component has weight 0.
 */
export function compositeReward(
  values: Partial<Record<RewardComponent, number>>,
  config: RewardConfig,
): CompositeReward {
  const present = COMPONENTS.filter((component) => values[component] !== undefined);
  if (present.length === 0) throw new Error('composite reward needs at least one component');
  let total = 0;
  for (const component of present) {
    if (!Number.isFinite(values[component])) throw new Error(`${component} reward is not a finite number`);
    total += config.weights[component];
  }
  if (total <= 0) throw new Error(`the components present (${present.join(', ')}) all have weight 0`);
  const weights: Partial<Record<RewardComponent, number>> = {};
  let value = 0;
  for (const component of present) {
    const weight = config.weights[component] / total;
    weights[component] = weight;
    value += weight * (values[component] ?? 0);
  }
  return { value, version: config.version, weights };
}
