import { type Arm } from './assignment';

export interface AssignmentTestVector {
  seed: string;
  userId: string;
  bucket: number;
  arms: readonly Arm[];
  armId: string;
}

/**
 * Cross-language conformance cases for assignmentBucket / assignArm: any other implementation of
 * the contract must reproduce them exactly. Computed with this implementation and, independently,
 * with Python's hashlib (python3, the same seeds, ids and arms):
 *   bucket = int(hashlib.sha256(f"{seed}:{user_id}".encode("utf-8")).hexdigest()[:13], 16) / 2**52
 *   arm    = first arm with bucket < cumsum(weights)[i] / sum(weights), summing left to right
 * and `repr(bucket)` pasted (shortest round-trip, the same digits as JavaScript prints).
 */
export const ASSIGNMENT_TEST_VECTORS: readonly AssignmentTestVector[] = [
  {
    seed: 'ckpt-2025-03',
    userId: 'user-0',
    bucket: 0.8726631797612574,
    arms: [
      { id: 'control', weight: 50 },
      { id: 'treatment', weight: 50 },
    ],
    armId: 'treatment',
  },
  {
    seed: 'ckpt-2025-03',
    userId: 'user-1',
    bucket: 0.27236953626339533,
    arms: [
      { id: 'control', weight: 50 },
      { id: 'treatment', weight: 50 },
    ],
    armId: 'control',
  },
  {
    seed: 'ckpt-2025-03',
    userId: 'user-1',
    bucket: 0.27236953626339533,
    arms: [
      { id: 'a', weight: 20 },
      { id: 'b', weight: 30 },
      { id: 'c', weight: 50 },
    ],
    armId: 'b',
  },
  {
    seed: 'ckpt-2025-03',
    userId: 'user-42',
    bucket: 0.6314076978931835,
    arms: [
      { id: 'a', weight: 20 },
      { id: 'b', weight: 30 },
      { id: 'c', weight: 50 },
    ],
    armId: 'c',
  },
  {
    seed: 'reward-v7',
    userId: '4f9c2a1e-7b1d-4c3e-9a55-0d8e6f2b1c77',
    bucket: 0.19558491006171286,
    arms: [
      { id: 'a', weight: 20 },
      { id: 'b', weight: 30 },
      { id: 'c', weight: 50 },
    ],
    armId: 'a',
  },
  {
    seed: 'reward-v7',
    userId: 'user-7',
    bucket: 0.7216401892432065,
    arms: [
      { id: 'off', weight: 0 },
      { id: 'a', weight: 1 },
      { id: 'b', weight: 1 },
      { id: 'c', weight: 1 },
    ],
    armId: 'c',
  },
  {
    seed: 'émoji-🚀',
    userId: 'ünïcødé',
    bucket: 0.8697359532470565,
    arms: [
      { id: 'control', weight: 90 },
      { id: 'treatment', weight: 10 },
    ],
    armId: 'control',
  },
  {
    seed: 'émoji-🚀',
    userId: 'user-1',
    bucket: 0.9509221733217785,
    arms: [
      { id: 'control', weight: 90 },
      { id: 'treatment', weight: 10 },
    ],
    armId: 'treatment',
  },
  {
    seed: 'seed',
    userId: 'user-0',
    bucket: 0.9262640385227567,
    arms: [
      { id: 'control', weight: 0.5 },
      { id: 'treatment', weight: 0.25 },
      { id: 'holdout', weight: 0.25 },
    ],
    armId: 'holdout',
  },
  { seed: '', userId: '', bucket: 0.9049687102438426, arms: [{ id: 'only', weight: 1 }], armId: 'only' },
];
