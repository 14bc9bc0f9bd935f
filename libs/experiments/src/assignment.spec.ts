import { type Arm, assignArm, assignmentBucket } from './assignment';
import { ASSIGNMENT_TEST_VECTORS } from './assignment-vectors';
import { sampleRatioMismatch } from './srm';

const USERS = Array.from({ length: 100_000 }, (_, i) => `user-${i}`);

function shares(seed: string, arms: readonly Arm[]): { counts: number[]; shares: number[] } {
  const index = new Map(arms.map((arm, i) => [arm.id, i]));
  const counts = arms.map(() => 0);
  for (const user of USERS) {
    const i = index.get(assignArm(seed, user, arms)) ?? -1;
    counts[i] = (counts[i] ?? 0) + 1;
  }
  return { counts, shares: counts.map((c) => c / USERS.length) };
}

describe('assignment test vectors', () => {
  it.each(ASSIGNMENT_TEST_VECTORS.map((v) => [v.seed, v.userId, v]))('%p / %p', (_seed, _user, v) => {
    expect(assignmentBucket(v.seed, v.userId)).toBe(v.bucket);
    expect(assignArm(v.seed, v.userId, v.arms)).toBe(v.armId);
  });
});

describe('assignmentBucket', () => {
  it('lies in [0, 1) and is sticky', () => {
    for (const user of USERS.slice(0, 1000)) {
      const bucket = assignmentBucket('s', user);
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(1);
      expect(assignmentBucket('s', user)).toBe(bucket);
    }
  });
});

describe('assignArm', () => {
  it.each([[[50, 50]], [[20, 30, 50]]])(
    'splits 100,000 users by weights %p within 1% and without SRM',
    (weights) => {
      const arms = weights.map((weight, i) => ({ id: `arm-${i}`, weight }));
      const { counts, shares: observed } = shares('uniformity', arms);
      const total = weights.reduce((a, b) => a + b, 0);
      observed.forEach((share, i) => expect(Math.abs(share - (weights[i] ?? 0) / total)).toBeLessThan(0.01));
      expect(sampleRatioMismatch(counts, weights).pValue).toBeGreaterThan(0.001);
    },
  );

  it('is sticky: the same input always gives the same arm', () => {
    const arms = [
      { id: 'a', weight: 1 },
      { id: 'b', weight: 2 },
    ];
    for (const user of USERS.slice(0, 1000)) {
      expect(assignArm('sticky', user, arms)).toBe(assignArm('sticky', user, arms));
    }
  });

  it('re-randomizes about half of the users at 50/50 when the seed changes', () => {
    const arms = [
      { id: 'control', weight: 50 },
      { id: 'treatment', weight: 50 },
    ];
    const moved = USERS.filter((u) => assignArm('seed-1', u, arms) !== assignArm('seed-2', u, arms)).length;
    expect(Math.abs(moved / USERS.length - 0.5)).toBeLessThan(0.01);
  });

  it('never assigns a zero-weight arm', () => {
    const arms = [
      { id: 'off', weight: 0 },
      { id: 'on', weight: 1 },
      { id: 'also-off', weight: 0 },
    ];
    for (const user of USERS.slice(0, 1000)) expect(assignArm('z', user, arms)).toBe('on');
  });

  it('rejects invalid weights', () => {
    expect(() => assignArm('s', 'u', [])).toThrow(RangeError);
    expect(() => assignArm('s', 'u', [{ id: 'a', weight: 0 }])).toThrow(RangeError);
    expect(() =>
      assignArm('s', 'u', [
        { id: 'a', weight: -1 },
        { id: 'b', weight: 2 },
      ]),
    ).toThrow(RangeError);
    expect(() => assignArm('s', 'u', [{ id: 'a', weight: NaN }])).toThrow(RangeError);
    expect(() => assignArm('s', 'u', [{ id: 'a', weight: Infinity }])).toThrow(RangeError);
  });
});
