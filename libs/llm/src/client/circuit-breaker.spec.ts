import { CircuitBreaker, type BreakerLease } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now = 0;
  const breaker = () => new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1_000, now: () => now });
  const failTimes = (b: CircuitBreaker, n: number) => {
    for (let i = 0; i < n; i++) b.acquire()?.fail();
  };
  const trial = (b: CircuitBreaker): BreakerLease => {
    const lease = b.acquire();
    if (!lease) throw new Error('expected a trial');
    return lease;
  };

  beforeEach(() => (now = 0));

  it('opens after consecutive failures and refuses calls during the cooldown', () => {
    const b = breaker();
    failTimes(b, 2);
    expect(b.acquire()).toBeDefined();
    failTimes(b, 1);
    expect(b.state).toBe('open');
    expect(b.acquire()).toBeUndefined();
  });

  it('a success resets the count', () => {
    const b = breaker();
    failTimes(b, 2);
    b.acquire()?.succeed();
    failTimes(b, 1);
    expect(b.state).toBe('closed');
  });

  it('after the cooldown lets exactly one trial through; its outcome decides', () => {
    const b = breaker();
    failTimes(b, 3);
    now = 1_000;
    const first = trial(b);
    expect(b.acquire()).toBeUndefined();
    first.fail();
    expect(b.state).toBe('open');
    now = 2_000;
    trial(b).succeed();
    expect(b.state).toBe('closed');
    expect(b.acquire()).toBeDefined();
  });

  it('a trial that neither succeeds nor fails frees the slot for the next one', () => {
    const b = breaker();
    failTimes(b, 3);
    now = 1_000;
    trial(b).release();
    trial(b).succeed();
    expect(b.state).toBe('closed');
  });

  it('settles a lease once: a release in a finally after a success or failure changes nothing', () => {
    const b = breaker();
    failTimes(b, 3);
    now = 1_000;
    const failed = trial(b);
    failed.fail();
    failed.release();
    expect(b.acquire()).toBeUndefined();
    now = 2_000;
    const succeeded = trial(b);
    succeeded.succeed();
    succeeded.fail();
    expect(b.state).toBe('closed');
  });

  it('a trial its caller abandoned stops blocking once the trial timeout has passed', () => {
    const b = new CircuitBreaker({
      failureThreshold: 1,
      cooldownMs: 1_000,
      trialTimeoutMs: 500,
      now: () => now,
    });
    failTimes(b, 1);
    now = 1_000;
    trial(b); // never settled
    now = 1_499;
    expect(b.acquire()).toBeUndefined();
    now = 1_500;
    trial(b).succeed();
    expect(b.state).toBe('closed');
  });

  it('the late outcome of a superseded trial does not reopen or block the circuit', () => {
    const b = new CircuitBreaker({
      failureThreshold: 1,
      cooldownMs: 1_000,
      trialTimeoutMs: 500,
      now: () => now,
    });
    failTimes(b, 1);
    now = 1_000;
    const stale = trial(b);
    now = 1_500;
    const current = trial(b);
    stale.fail();
    expect(b.acquire()).toBeUndefined();
    current.succeed();
    expect(b.state).toBe('closed');
  });

  it('failures of calls started before the circuit opened do not push recovery back', () => {
    const b = breaker();
    const slow = [trial(b), trial(b), trial(b), trial(b)];
    slow.slice(0, 3).forEach((lease) => lease.fail());
    now = 900;
    slow[3]?.fail();
    now = 1_000;
    expect(b.state).toBe('half-open');
  });
});
