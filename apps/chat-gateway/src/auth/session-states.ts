import { CLOCK, type Clock, MetricsService } from '@echoloop/platform';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { TtlCache } from '../common/ttl-cache';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { AccountChanges, EVERY_ACCOUNT } from './account-changes';
import { type AccountState, AuthRepository } from './auth.repository';
import type { Principal } from './principal';
import { type AccessClaims, TokenService } from './token.service';

/**
 * Turns a valid access token into what its account may do now: the account's current roles, if the account still
 * exists, is not disabled and the token's session has not ended. Account states are cached per user and dropped the
 * moment AccountChanges says the account changed (here or on another replica); the TTL only bounds how long a
 * missed notification could matter.
 */
@Injectable()
export class SessionStates implements OnModuleInit {
  private readonly cache: TtlCache<string, AccountState | null>;
  private readonly lookups: Counter<'result'>;

  constructor(
    private readonly tokens: TokenService,
    private readonly repository: AuthRepository,
    private readonly changes: AccountChanges,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
    metrics: MetricsService,
  ) {
    this.cache = new TtlCache(env.AUTH_STATE_CACHE_MS, {
      maxEntries: 100_000,
      now: () => this.clock().getTime(),
    });
    this.lookups = metrics.counter(
      'auth_account_state_lookups_total',
      'Account-state checks of access tokens, by whether the cache answered',
      ['result'],
    );
  }

  onModuleInit(): void {
    this.changes.subscribe((userId) => {
      if (userId === EVERY_ACCOUNT) this.cache.clear();
      else this.cache.delete(userId);
    });
  }

  /** The principal of a bearer token, or undefined when it may not act (401). */
  async authenticate(token: string): Promise<Principal | undefined> {
    const claims = await this.tokens.verify(token);
    return claims && this.principal(claims);
  }

  async principal({ userId, sessionId }: AccessClaims): Promise<Principal | undefined> {
    let loaded = false;
    const load = (id: string) => {
      loaded = true;
      return this.repository.accountState(id, this.clock());
    };
    let state = await this.cache.get(userId, load);
    // A session started (or refreshed) a moment ago may be newer than the cached state: look once more.
    const cachedEnd = state?.sessions.get(sessionId);
    if (state && !loaded && (!cachedEnd || cachedEnd <= this.clock())) {
      this.cache.delete(userId);
      state = await this.cache.get(userId, load);
    }
    this.lookups.inc({ result: loaded ? 'miss' : 'hit' });
    const sessionEnds = state?.sessions.get(sessionId);
    if (!state || state.disabled || !sessionEnds || sessionEnds <= this.clock()) return undefined;
    return { userId, roles: state.roles, kind: 'user', sessionId };
  }
}
