import { type Summary } from './moments';

/**
 * A variance estimated from fewer than two observations is not 0 but unknown; reporting p = 0 for
 * it would be dishonest, so the tests refuse such arms instead.
 */
export function assertEstimable(s: Summary, label: string): void {
  if (!(Number.isInteger(s.n) && s.n >= 2)) {
    throw new RangeError(`${label} needs at least 2 observations, got n=${s.n}`);
  }
  if (!Number.isFinite(s.mean)) throw new RangeError(`${label} mean must be finite, got ${s.mean}`);
  if (!(Number.isFinite(s.variance) && s.variance >= 0)) {
    throw new RangeError(`${label} variance must be finite and >= 0, got ${s.variance}`);
  }
}

export function assertLevel(level: number, name = 'level'): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`${name} must be in (0, 1), got ${level}`);
}
