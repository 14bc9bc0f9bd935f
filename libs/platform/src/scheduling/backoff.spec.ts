import { Backoff, backoffDelay } from './backoff';

describe('Backoff', () => {
  it('doubles from the first delay up to the cap, and starts over after a reset', () => {
    const backoff = new Backoff({ initialMs: 200, maxMs: 1_000 });
    expect([1, 2, 3, 4, 5].map(() => backoff.next())).toEqual([200, 400, 800, 1_000, 1_000]);
    backoff.reset();
    expect(backoff.next()).toBe(200);
  });

  it('never waits longer than the cap, the first delay included', () => {
    expect(new Backoff({ initialMs: 200, maxMs: 100 }).next()).toBe(100);
  });

  it('gives a stateless loop the same delay for its nth retry', () => {
    const backoff = new Backoff({ initialMs: 100, maxMs: 5_000 });
    for (let attempt = 1; attempt <= 8; attempt++)
      expect(backoffDelay(attempt, { initialMs: 100, maxMs: 5_000 })).toBe(backoff.next());
  });
});
