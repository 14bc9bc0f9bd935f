import { PG_ERROR, pgErrorCode } from '@echoloop/persistence';
import { CLOCK, type Clock, hashPassword, verifyPassword } from '@echoloop/platform';
import {
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { AccountChanges } from './account-changes';
import { AuthRepository } from './auth.repository';
import type { LoginInput, RegisterInput } from './auth.schemas';
import type { Principal } from './principal';
import { TokenService } from './token.service';

/** A real hash to compare against when the email is unknown, so timing does not reveal which emails exist. */
const DECOY_HASH = hashPassword('decoy password never used');
const DAY_MS = 86_400_000;

export interface SessionTokens {
  accessToken: string;
  /** Used once: each refresh answers the next one. */
  refreshToken: string;
  tokenType: 'Bearer';
  /** Seconds the access token lives. */
  expiresIn: number;
}

const hashRefreshToken = (secret: string) => createHash('sha256').update(secret).digest('hex');
const invalidRefresh = () =>
  new UnauthorizedException({
    error: { code: 'invalid_refresh_token', message: 'This refresh token cannot be used; sign in again' },
  });

/** Accounts and their sessions: sign up, sign in, refresh with rotation, sign out. */
@Injectable()
export class AuthService {
  constructor(
    private readonly repository: AuthRepository,
    private readonly tokens: TokenService,
    private readonly changes: AccountChanges,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly logger: PinoLogger,
  ) {}

  async register({
    email,
    password,
    displayName,
  }: RegisterInput): Promise<SessionTokens & { userId: string }> {
    const passwordHash = await hashPassword(password);
    try {
      const user = await this.repository.createUser({ email, passwordHash, displayName });
      return { userId: user.id, ...(await this.startSession(user.id)) };
    } catch (error) {
      if (pgErrorCode(error) === PG_ERROR.uniqueViolation) {
        throw new ConflictException({
          error: { code: 'email_taken', message: 'An account with this email exists' },
        });
      }
      throw error;
    }
  }

  /** Null when the email or password is wrong (the caller counts the failure). */
  async login({ email, password }: LoginInput): Promise<SessionTokens | null> {
    const user = await this.repository.findByEmail(email);
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DECOY_HASH));
    if (!user?.passwordHash || !ok) return null;
    // Only after the password: a disabled account is not revealed to someone who does not know it.
    if (user.disabledAt) {
      throw new ForbiddenException({
        error: { code: 'account_disabled', message: 'This account is disabled' },
      });
    }
    return this.startSession(user.id);
  }

  /**
   * Rotation with reuse detection: a refresh token that was already used revokes its whole session, unless it comes
   * back within REFRESH_REUSE_GRACE_MS (two tabs refreshing at once), which gets a successor of its own.
   */
  async refresh(refreshToken: string): Promise<SessionTokens> {
    const now = this.clock();
    const next = newRefreshToken();
    const result = await this.repository.rotate(
      hashRefreshToken(refreshToken),
      next.hash,
      now,
      this.sessionExpiry(now),
      this.env.REFRESH_REUSE_GRACE_MS,
    );
    if (result.outcome === 'rotated' && result.graced) {
      this.logger.info(
        { userId: result.userId, sessionId: result.sessionId },
        'refresh token used again within its grace; renewed',
      );
    }
    if (result.outcome === 'reused') {
      this.logger.warn(
        { userId: result.userId, sessionId: result.sessionId },
        'refresh token reused; session revoked',
      );
      await this.changes.publish(result.userId);
    }
    if (result.outcome !== 'rotated') throw invalidRefresh();
    return this.tokensFor(result.userId, result.sessionId, next.secret);
  }

  /** Ends the caller's session, or every session of the account; its access tokens stop working at once. */
  async logout(principal: Principal, everywhere: boolean): Promise<void> {
    const now = this.clock();
    if (everywhere) await this.repository.revokeAllSessions(principal.userId, 'logout_all', now);
    else if (principal.sessionId) {
      await this.repository.revokeSession(principal.userId, principal.sessionId, 'logout', now);
    }
    await this.changes.publish(principal.userId);
  }

  async erase(principal: Principal): Promise<void> {
    await this.repository.eraseAccount(principal.userId);
    await this.changes.publish(principal.userId);
  }

  private async startSession(userId: string): Promise<SessionTokens> {
    const refresh = newRefreshToken();
    const sessionId = await this.repository.startSession(
      userId,
      refresh.hash,
      this.sessionExpiry(this.clock()),
    );
    await this.changes.publish(userId);
    return this.tokensFor(userId, sessionId, refresh.secret);
  }

  private async tokensFor(userId: string, sessionId: string, refreshToken: string): Promise<SessionTokens> {
    return {
      accessToken: await this.tokens.issue({ userId, sessionId }),
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: this.tokens.ttlSeconds,
    };
  }

  private sessionExpiry(now: Date): Date {
    return new Date(now.getTime() + this.env.REFRESH_TTL_DAYS * DAY_MS);
  }
}

function newRefreshToken(): { secret: string; hash: string } {
  const secret = `elr_${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashRefreshToken(secret) };
}
