import { CLOCK, type Clock } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { TokenBuckets } from '../limits/token-bucket';

/**
 * Sign-in throttling that a stranger cannot turn against the owner (OWASP Authentication Cheat Sheet): attempts
 * are limited per client address and per (account, client address) pair, so one client guessing a password is
 * slowed down while the owner elsewhere signs in as usual; only failures from all clients together count against
 * the account alone, with a ceiling far above what one client may try.
 */
@Injectable()
export class LoginThrottle {
  private readonly perClient: TokenBuckets;
  private readonly perAccountAndClient: TokenBuckets;
  private readonly accountFailures: TokenBuckets;

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv, @Inject(CLOCK) clock: Clock) {
    const now = () => clock().getTime();
    this.perClient = new TokenBuckets(env.AUTH_ATTEMPTS_PER_MINUTE, 60_000, now);
    this.perAccountAndClient = new TokenBuckets(env.AUTH_ACCOUNT_ATTEMPTS_PER_MINUTE, 60_000, now);
    this.accountFailures = new TokenBuckets(env.AUTH_ACCOUNT_FAILURES_PER_MINUTE, 60_000, now);
  }

  /** Counts an attempt; the milliseconds to wait when it is one too many (0: go ahead). */
  attempt(client: string, account: string): number {
    const accountWait = this.accountFailures.wait(account);
    if (accountWait > 0) return accountWait;
    return Math.max(this.perClient.take(client), this.perAccountAndClient.take(`${account}\n${client}`));
  }

  /** A wrong password for an existing or unknown account. */
  failed(account: string): void {
    this.accountFailures.take(account);
  }
}
