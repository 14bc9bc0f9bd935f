import { CLOCK, type Clock } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { TtlCache } from '../common/ttl-cache';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

const ISSUER = 'echoloop';
const claims = z.object({ sub: z.uuid(), sid: z.uuid(), exp: z.number() });

/** How long a checked signature is trusted without checking it again; the token's own expiry still applies. */
const VERIFIED_TTL_MS = 60_000;

/** Who a valid access token names; whether that account and session may still act is SessionStates' question. */
export interface AccessClaims {
  userId: string;
  sessionId: string;
}

interface Verified {
  claims: AccessClaims;
  expiresAtMs: number;
}

/**
 * HS256 access tokens: short-lived, naming the user and the session. Roles are not in the token: they are read
 * from the account as it is now, so a change takes effect at once.
 */
@Injectable()
export class TokenService {
  private readonly key: Uint8Array;
  /**
   * Valid tokens, by their text: a client sends the same token with every request, and checking its signature
   * again (JOSE parsing and an HMAC, about 0.1 ms) is most of what authenticating an SSE turn costs. Only valid
   * tokens are kept; a forged one is checked every time it comes.
   */
  private readonly verified: TtlCache<string, Verified>;

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.key = new TextEncoder().encode(env.JWT_SECRET);
    this.verified = new TtlCache(VERIFIED_TTL_MS, { now: () => this.clock().getTime() });
  }

  get ttlSeconds(): number {
    return this.env.JWT_TTL_SECONDS;
  }

  issue({ userId, sessionId }: AccessClaims): Promise<string> {
    const now = Math.floor(this.clock().getTime() / 1000);
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setIssuedAt(now)
      .setExpirationTime(now + this.env.JWT_TTL_SECONDS)
      .sign(this.key);
  }

  /** The claims of a valid token; undefined for anything else (expired, forged, malformed, without `exp`). */
  async verify(token: string): Promise<AccessClaims | undefined> {
    try {
      const { claims, expiresAtMs } = await this.verified.get(token, (t) => this.check(t));
      return expiresAtMs > this.clock().getTime() ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  /** The signature, issuer and claims checked; throws for an invalid token (which the cache then drops). */
  private async check(token: string): Promise<Verified> {
    const { payload } = await jwtVerify(token, this.key, {
      issuer: ISSUER,
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'iat', 'sub', 'sid'],
      currentDate: this.clock(),
    });
    const { sub, sid, exp } = claims.parse(payload);
    return { claims: { userId: sub, sessionId: sid }, expiresAtMs: exp * 1000 };
  }
}
