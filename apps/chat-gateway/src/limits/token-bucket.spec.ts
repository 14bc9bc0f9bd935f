import { TokenBuckets } from './token-bucket';

describe('TokenBuckets', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 0));

  it('allows a burst up to capacity, then says how long to wait', () => {
    const buckets = new TokenBuckets(3, 60_000, clock);
    expect([buckets.take('u'), buckets.take('u'), buckets.take('u')]).toEqual([0, 0, 0]);
    expect(buckets.take('u')).toBe(20_000);
  });

  it('refills over time', () => {
    const buckets = new TokenBuckets(3, 60_000, clock);
    for (let i = 0; i < 3; i++) buckets.take('u');
    now = 20_000;
    expect(buckets.take('u')).toBe(0);
    expect(buckets.take('u')).toBeGreaterThan(0);
  });

  it('keeps users apart', () => {
    const buckets = new TokenBuckets(1, 60_000, clock);
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('b')).toBe(0);
    expect(buckets.take('a')).toBeGreaterThan(0);
  });
});
