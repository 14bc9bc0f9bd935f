import { createHash } from 'node:crypto';

export interface Arm {
  id: string;
  weight: number;
}

const TWO_POW_52 = 2 ** 52;

/**
 * Deterministic position of a user in [0, 1) for one experiment.
 *
 * Contract (stable across languages; see ASSIGNMENT_TEST_VECTORS):
 *   bucket = int(first 13 hex digits of sha256_hex(`${seed}:${userId}`), 16) / 2^52
 * The string is hashed as UTF-8. 52 bits fit a double exactly, so every language gets the same number.
 */
export function assignmentBucket(seed: string, userId: string): number {
  const hex = createHash('sha256').update(`${seed}:${userId}`, 'utf8').digest('hex');
  return parseInt(hex.slice(0, 13), 16) / TWO_POW_52;
}

/**
 * Deterministic arm for a user.
 *
 * Contract: with W = the sum of the weights (added left to right), arm i owns the interval
 * [C(i−1)/W, C(i)/W) where C(i) is the running sum of the weights of arms 0..i (left to right, in
 * IEEE doubles). The user gets the first arm whose upper bound C(i)/W exceeds
 * assignmentBucket(seed, userId). Zero-weight arms own an empty interval and never receive users;
 * C(last)/W is exactly 1, so every bucket lands somewhere.
 *
 * Changing the seed re-randomizes everyone; changing the weights moves only the users whose bucket
 * crosses a boundary. Throws when there are no arms, a weight is negative or not finite, or all are 0.
 */
export function assignArm(seed: string, userId: string, arms: readonly Arm[]): string {
  const total = totalWeight(arms);
  const bucket = assignmentBucket(seed, userId);
  let cumulative = 0;
  for (const arm of arms) {
    cumulative += arm.weight;
    if (bucket < cumulative / total) return arm.id;
  }
  throw new Error('unreachable: the last upper bound is 1 and buckets are < 1');
}

function totalWeight(arms: readonly Arm[]): number {
  if (arms.length === 0) throw new RangeError('assignArm needs at least one arm');
  let total = 0;
  for (const arm of arms) {
    if (!(Number.isFinite(arm.weight) && arm.weight >= 0)) {
      throw new RangeError(`arm ${arm.id} has an invalid weight ${arm.weight}`);
    }
    total += arm.weight;
  }
  if (total === 0) throw new RangeError('assignArm needs at least one arm with a positive weight');
  return total;
}
