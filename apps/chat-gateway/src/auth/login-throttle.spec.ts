import { CLOCK } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { LoginThrottle } from './login-throttle';

const MINUTE = 60_000;

async function setUp() {
  let now = new Date('2026-11-24T10:00:00Z');
  const env = gatewayEnv.parse({
    AUTH_ATTEMPTS_PER_MINUTE: '30',
    AUTH_ACCOUNT_ATTEMPTS_PER_MINUTE: '10',
    AUTH_ACCOUNT_FAILURES_PER_MINUTE: '20',
  });
  const module = await Test.createTestingModule({
    providers: [
      LoginThrottle,
      { provide: GATEWAY_ENV, useValue: env },
      { provide: CLOCK, useValue: () => now },
    ],
  }).compile();
  return {
    throttle: module.get(LoginThrottle),
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** The waits of `n` attempts in a row. */
function attempts(throttle: LoginThrottle, n: number, client: string, account: (i: number) => string) {
  return Array.from({ length: n }, (_, i) => throttle.attempt(client, account(i)));
}

describe('LoginThrottle', () => {
  it('lets one client try an account ten times a minute, then makes it wait', async () => {
    const { throttle } = await setUp();

    expect(attempts(throttle, 10, '198.51.100.7', () => 'ada@example.com')).toEqual(Array(10).fill(0));
    const wait = throttle.attempt('198.51.100.7', 'ada@example.com');

    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(MINUTE);
  });

  it('does not lock the owner out: the same account from another client still passes', async () => {
    const { throttle } = await setUp();
    attempts(throttle, 11, '198.51.100.7', () => 'ada@example.com');

    expect(throttle.attempt('203.0.113.9', 'ada@example.com')).toBe(0);
    expect(throttle.attempt('198.51.100.7', 'ada@example.com')).toBeGreaterThan(0);
  });

  it('lets the throttled client in again once it has waited as long as it was told', async () => {
    const { throttle, advance } = await setUp();
    attempts(throttle, 10, '198.51.100.7', () => 'ada@example.com');
    const wait = throttle.attempt('198.51.100.7', 'ada@example.com');

    advance(wait - 1);
    expect(throttle.attempt('198.51.100.7', 'ada@example.com')).toBeGreaterThan(0);
    advance(1);
    expect(throttle.attempt('198.51.100.7', 'ada@example.com')).toBe(0);
  });

  it('limits one client across accounts, leaving other clients alone', async () => {
    const { throttle } = await setUp();

    expect(attempts(throttle, 30, '198.51.100.7', (i) => `user${i}@example.com`)).toEqual(Array(30).fill(0));

    expect(throttle.attempt('198.51.100.7', 'someone-new@example.com')).toBeGreaterThan(0);
    expect(throttle.attempt('203.0.113.9', 'someone-new@example.com')).toBe(0);
  });

  it("blocks every client of an account after too many failures from all of them, and only that account's", async () => {
    const { throttle } = await setUp();
    for (let i = 0; i < 20; i++) {
      const client = `10.0.0.${i}`;
      expect(throttle.attempt(client, 'ada@example.com')).toBe(0);
      throttle.failed('ada@example.com');
    }

    expect(throttle.attempt('203.0.113.9', 'ada@example.com')).toBeGreaterThan(0);
    expect(throttle.attempt('10.0.0.0', 'ada@example.com')).toBeGreaterThan(0);
    expect(throttle.attempt('203.0.113.9', 'bob@example.com')).toBe(0);
    expect(throttle.attempt('10.0.0.0', 'bob@example.com')).toBe(0);
  });

  it('does not count attempts that succeed against the account', async () => {
    const { throttle } = await setUp();

    for (let i = 0; i < 30; i++) expect(throttle.attempt(`10.0.0.${i}`, 'ada@example.com')).toBe(0);

    expect(throttle.attempt('203.0.113.9', 'ada@example.com')).toBe(0);
  });

  it('lets every throttle through again after a minute', async () => {
    const { throttle, advance } = await setUp();
    attempts(throttle, 11, '198.51.100.7', () => 'ada@example.com');
    attempts(throttle, 30, '198.51.100.8', (i) => `user${i}@example.com`);
    for (let i = 0; i < 21; i++) throttle.failed('bob@example.com');
    expect(throttle.attempt('198.51.100.7', 'ada@example.com')).toBeGreaterThan(0);
    expect(throttle.attempt('198.51.100.8', 'new@example.com')).toBeGreaterThan(0);
    expect(throttle.attempt('203.0.113.9', 'bob@example.com')).toBeGreaterThan(0);

    advance(MINUTE);

    expect(attempts(throttle, 10, '198.51.100.7', () => 'ada@example.com')).toEqual(Array(10).fill(0));
    expect(throttle.attempt('198.51.100.8', 'new@example.com')).toBe(0);
    expect(throttle.attempt('203.0.113.9', 'bob@example.com')).toBe(0);
  });
});
