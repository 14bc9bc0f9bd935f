import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now = 0;
  const breaker = () => new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1_000, now: () => now });

  beforeEach(() => (now = 0));

  it('opens after consecutive failures and refuses calls during the cooldown', () => {
    const b = breaker();
    b.failure();
    b.failure();
    expect(b.tryAcquire()).toBe(true);
    b.failure();
    expect(b.state).toBe('open');
    expect(b.tryAcquire()).toBe(false);
  });

  it('a success resets the count', () => {
    const b = breaker();
    b.failure();
    b.failure();
    b.success();
    b.failure();
    expect(b.state).toBe('closed');
  });

  it('a probe that neither succeeds nor fails frees the slot for the next one', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.failure();
    now = 1_000;
    expect(b.tryAcquire()).toBe(true);
    b.release();
    expect(b.tryAcquire()).toBe(true);
  });

  it('after the cooldown lets exactly one probe through; its outcome decides', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.failure();
    now = 1_000;
    expect(b.tryAcquire()).toBe(true);
    expect(b.tryAcquire()).toBe(false);
    b.failure();
    expect(b.state).toBe('open');
    now = 2_000;
    expect(b.tryAcquire()).toBe(true);
    b.success();
    expect(b.state).toBe('closed');
    expect(b.tryAcquire()).toBe(true);
  });
});
