import type { Role } from '@echoloop/persistence';
import { ROLES } from '@echoloop/persistence';
import { Inject, Injectable } from '@nestjs/common';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type { Principal } from './principal';

const ISSUER = 'echoloop';
const claims = z.object({ sub: z.uuid(), roles: z.array(z.enum(ROLES)) });

/** HS256 access tokens: short-lived, carrying the user id and roles. */
@Injectable()
export class TokenService {
  private readonly key: Uint8Array;

  constructor(@Inject(GATEWAY_ENV) private readonly env: GatewayEnv) {
    this.key = new TextEncoder().encode(env.JWT_SECRET);
  }

  issue(userId: string, roles: readonly Role[]): Promise<string> {
    return new SignJWT({ roles: [...roles] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setExpirationTime(`${this.env.JWT_TTL_SECONDS}s`)
      .sign(this.key);
  }

  /** The principal for a valid token; undefined for anything else (expired, forged, malformed). */
  async verify(token: string): Promise<Principal | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, algorithms: ['HS256'] });
      const parsed = claims.safeParse(payload);
      return parsed.success ? { userId: parsed.data.sub, roles: parsed.data.roles, kind: 'user' } : undefined;
    } catch {
      return undefined;
    }
  }
}
