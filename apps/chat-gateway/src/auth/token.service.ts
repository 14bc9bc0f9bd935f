import { Inject, Injectable } from '@nestjs/common';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

const ISSUER = 'echoloop';
const claims = z.object({ sub: z.uuid(), sid: z.uuid() });

/** Who a valid access token names; whether that account and session may still act is SessionStates' question. */
export interface AccessClaims {
  userId: string;
  sessionId: string;
}

/**
 * HS256 access tokens: short-lived, naming the user and the session. Roles are not in the token: they are read
 * from the account as it is now, so a change takes effect at once.
 */
@Injectable()
export class TokenService {
  private readonly key: Uint8Array;

  constructor(@Inject(GATEWAY_ENV) private readonly env: GatewayEnv) {
    this.key = new TextEncoder().encode(env.JWT_SECRET);
  }

  get ttlSeconds(): number {
    return this.env.JWT_TTL_SECONDS;
  }

  issue({ userId, sessionId }: AccessClaims): Promise<string> {
    return new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.env.JWT_TTL_SECONDS}s`)
      .sign(this.key);
  }

  /** The claims of a valid token; undefined for anything else (expired, forged, malformed, without `exp`). */
  async verify(token: string): Promise<AccessClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        algorithms: ['HS256'],
        requiredClaims: ['exp', 'iat', 'sub', 'sid'],
      });
      const parsed = claims.safeParse(payload);
      return parsed.success ? { userId: parsed.data.sub, sessionId: parsed.data.sid } : undefined;
    } catch {
      return undefined;
    }
  }
}
