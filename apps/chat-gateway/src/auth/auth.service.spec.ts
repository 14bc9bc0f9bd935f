import { CLOCK, hashPassword } from '@echoloop/platform';
import type { UserEntity } from '@echoloop/persistence';
import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { AccountChanges } from './account-changes';
import { AuthRepository, type RotateOutcome } from './auth.repository';
import { AuthService } from './auth.service';
import type { Principal } from './principal';
import { TokenService } from './token.service';

const NOW = new Date('2026-11-24T10:00:00Z');
const DAY = 86_400_000;
const PASSWORD = 'correct horse battery staple';
const GRACE_MS = 10_000;

interface Session {
  id: string;
  userId: string;
  expiresAt: Date;
  revoked: string | null;
}

/** Users, sessions and refresh tokens (by hash) in memory, with AuthRepository's semantics. */
class InMemoryAuth {
  users = new Map<string, UserEntity>();
  sessions = new Map<string, Session>();
  refreshTokens = new Map<string, { sessionId: string; usedAt: Date | null }>();
  rotations: { tokenHash: string; now: Date; expiresAt: Date; graceMs: number }[] = [];

  async findByEmail(email: string) {
    return [...this.users.values()].find((u) => u.email === email) ?? null;
  }

  async startSession(userId: string, refreshHash: string, expiresAt: Date) {
    const id = randomUUID();
    this.sessions.set(id, { id, userId, expiresAt, revoked: null });
    this.refreshTokens.set(refreshHash, { sessionId: id, usedAt: null });
    return id;
  }

  async rotate(
    tokenHash: string,
    nextHash: string,
    now: Date,
    expiresAt: Date,
    graceMs: number,
  ): Promise<RotateOutcome> {
    this.rotations.push({ tokenHash, now, expiresAt, graceMs });
    const token = this.refreshTokens.get(tokenHash);
    const session = token && this.sessions.get(token.sessionId);
    if (!token || !session || session.revoked || session.expiresAt <= now) return { outcome: 'refused' };
    const usedAt = token.usedAt;
    if (usedAt && !this.inGrace(tokenHash, session.id, usedAt, now, graceMs)) {
      session.revoked = 'refresh_reuse';
      return { outcome: 'reused', userId: session.userId, sessionId: session.id };
    }
    token.usedAt ??= now;
    this.refreshTokens.set(nextHash, { sessionId: session.id, usedAt: null });
    session.expiresAt = expiresAt;
    return { outcome: 'rotated', userId: session.userId, sessionId: session.id, graced: usedAt !== null };
  }

  private inGrace(tokenHash: string, sessionId: string, usedAt: Date, now: Date, graceMs: number): boolean {
    if (now.getTime() - usedAt.getTime() >= graceMs) return false;
    return ![...this.refreshTokens].some(
      ([hash, t]) => hash !== tokenHash && t.sessionId === sessionId && t.usedAt && t.usedAt >= usedAt,
    );
  }

  async revokeSession(userId: string, sessionId: string, reason: string) {
    const session = this.sessions.get(sessionId);
    if (!session || session.userId !== userId || session.revoked) return false;
    session.revoked = reason;
    return true;
  }

  async revokeAllSessions(userId: string, reason: string) {
    const live = [...this.sessions.values()].filter((s) => s.userId === userId && !s.revoked);
    for (const session of live) session.revoked = reason;
    return live.length > 0;
  }

  live(userId: string): string[] {
    return [...this.sessions.values()].filter((s) => s.userId === userId && !s.revoked).map((s) => s.id);
  }
}

let passwordHash: string;
beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});

function user(email: string, disabledAt: Date | null = null): UserEntity {
  return {
    id: randomUUID(),
    email,
    displayName: email,
    passwordHash,
    roles: ['user'],
    disabledAt,
    trainingConsent: null,
    simulated: false,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:00:00Z'),
  };
}

async function setUp(...users: UserEntity[]) {
  let now = NOW;
  const repository = new InMemoryAuth();
  for (const u of users) repository.users.set(u.id, u);
  const changes = new AccountChanges();
  const published: string[] = [];
  changes.subscribe((userId) => {
    published.push(userId);
  });
  const logger = { warn: jest.fn(), error: jest.fn(), info: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      AuthService,
      TokenService,
      { provide: AuthRepository, useValue: repository },
      { provide: AccountChanges, useValue: changes },
      { provide: CLOCK, useValue: () => now },
      {
        provide: GATEWAY_ENV,
        useValue: gatewayEnv.parse({
          JWT_SECRET: 'x'.repeat(32),
          JWT_TTL_SECONDS: '60',
          REFRESH_TTL_DAYS: '30',
          REFRESH_REUSE_GRACE_MS: String(GRACE_MS),
        }),
      },
      { provide: PinoLogger, useValue: logger },
    ],
  }).compile();
  return {
    auth: module.get(AuthService),
    tokens: module.get(TokenService),
    repository,
    published,
    logger,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** Signs in and forgets what that published, so each test sees only what it does itself. */
async function signedIn(setup: Awaited<ReturnType<typeof setUp>>, email: string) {
  const session = await setup.auth.login({ email, password: PASSWORD });
  if (!session) throw new Error('sign-in failed');
  const claims = await setup.tokens.verify(session.accessToken);
  setup.published.length = 0;
  return { ...session, sessionId: claims!.sessionId };
}

const principalOf = (userId: string, sessionId: string): Principal => ({
  userId,
  roles: ['user'],
  kind: 'user',
  sessionId,
});

describe('AuthService', () => {
  describe('login', () => {
    it('starts a session for the right password and publishes it', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);

      const session = await setup.auth.login({ email: 'ada@example.com', password: PASSWORD });

      expect(session).toMatchObject({ tokenType: 'Bearer', expiresIn: 60 });
      const claims = await setup.tokens.verify(session!.accessToken);
      expect(claims?.userId).toBe(ada.id);
      expect(setup.repository.live(ada.id)).toEqual([claims?.sessionId]);
      expect(setup.repository.sessions.get(claims!.sessionId)?.expiresAt).toEqual(
        new Date(NOW.getTime() + 30 * DAY),
      );
      expect(setup.published).toEqual([ada.id]);
    });

    it('returns null for a wrong password and starts no session', async () => {
      const ada = user('ada@example.com');
      const { auth, repository, published } = await setUp(ada);

      await expect(auth.login({ email: 'ada@example.com', password: 'wrong password' })).resolves.toBeNull();

      expect(repository.sessions.size).toBe(0);
      expect(published).toEqual([]);
    });

    it('returns null for an unknown email', async () => {
      const { auth, repository } = await setUp(user('ada@example.com'));

      await expect(auth.login({ email: 'nobody@example.com', password: PASSWORD })).resolves.toBeNull();
      expect(repository.sessions.size).toBe(0);
    });

    it('refuses a disabled account with 403 account_disabled only after the right password', async () => {
      const ada = user('ada@example.com', new Date('2026-11-01T00:00:00Z'));
      const { auth, repository, published } = await setUp(ada);

      await expect(auth.login({ email: 'ada@example.com', password: 'wrong password' })).resolves.toBeNull();
      const attempt = auth.login({ email: 'ada@example.com', password: PASSWORD });

      await expect(attempt).rejects.toThrow(ForbiddenException);
      await expect(attempt).rejects.toMatchObject({ response: { error: { code: 'account_disabled' } } });
      expect(repository.sessions.size).toBe(0);
      expect(published).toEqual([]);
    });
  });

  describe('refresh', () => {
    it('rotates: a new refresh token, and an access token for the same session', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');

      const next = await setup.auth.refresh(first.refreshToken);

      expect(next.refreshToken).not.toBe(first.refreshToken);
      expect(next).toMatchObject({ tokenType: 'Bearer', expiresIn: 60 });
      await expect(setup.tokens.verify(next.accessToken)).resolves.toEqual({
        userId: ada.id,
        sessionId: first.sessionId,
      });
      expect(setup.repository.rotations).toEqual([
        expect.objectContaining({
          now: NOW,
          expiresAt: new Date(NOW.getTime() + 30 * DAY),
          graceMs: GRACE_MS,
        }),
      ]);
      expect(setup.published).toEqual([]);
    });

    it('keeps only hashes of refresh tokens, and the new one works for the next refresh', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');

      const second = await setup.auth.refresh(first.refreshToken);
      const third = await setup.auth.refresh(second.refreshToken);

      await expect(setup.tokens.verify(third.accessToken)).resolves.toMatchObject({
        sessionId: first.sessionId,
      });
      const stored = [...setup.repository.refreshTokens.keys()];
      for (const secret of [first.refreshToken, second.refreshToken, third.refreshToken]) {
        expect(stored).not.toContain(secret);
      }
    });

    it('treats a used token coming back as theft: the session ends, the change is published, 401', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');
      const second = await setup.auth.refresh(first.refreshToken);
      setup.advance(GRACE_MS);

      const replay = setup.auth.refresh(first.refreshToken);

      await expect(replay).rejects.toThrow(UnauthorizedException);
      await expect(replay).rejects.toMatchObject({ response: { error: { code: 'invalid_refresh_token' } } });
      expect(setup.published).toEqual([ada.id]);
      expect(setup.repository.live(ada.id)).toEqual([]);
      expect(setup.logger.warn).toHaveBeenCalledWith(
        { userId: ada.id, sessionId: first.sessionId },
        expect.any(String),
      );
      await expect(setup.auth.refresh(second.refreshToken)).rejects.toThrow(UnauthorizedException);
    });

    it('renews twice for two tabs refreshing with one token at once: each gets its own next token', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');

      const tabA = await setup.auth.refresh(first.refreshToken);
      setup.advance(GRACE_MS - 1);
      const tabB = await setup.auth.refresh(first.refreshToken);

      expect(tabB.refreshToken).not.toBe(tabA.refreshToken);
      for (const tab of [tabA, tabB]) {
        await expect(setup.tokens.verify(tab.accessToken)).resolves.toEqual({
          userId: ada.id,
          sessionId: first.sessionId,
        });
      }
      expect(setup.repository.live(ada.id)).toEqual([first.sessionId]);
      expect(setup.published).toEqual([]);
      expect(setup.logger.warn).not.toHaveBeenCalled();
      expect(setup.logger.info).toHaveBeenCalledWith(
        { userId: ada.id, sessionId: first.sessionId },
        expect.any(String),
      );
      // Both tabs go on, each with its own token.
      await expect(setup.auth.refresh(tabA.refreshToken)).resolves.toMatchObject({ tokenType: 'Bearer' });
      await expect(setup.auth.refresh(tabB.refreshToken)).resolves.toMatchObject({ tokenType: 'Bearer' });
      expect(setup.repository.live(ada.id)).toEqual([first.sessionId]);
    });

    it('counts the grace from the first use: a used token cannot be stretched by coming back again', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');
      const tabA = await setup.auth.refresh(first.refreshToken);
      setup.advance(GRACE_MS / 2);
      const tabB = await setup.auth.refresh(first.refreshToken);
      setup.advance(GRACE_MS / 2);

      await expect(setup.auth.refresh(first.refreshToken)).rejects.toThrow(UnauthorizedException);

      expect(setup.repository.live(ada.id)).toEqual([]);
      expect(setup.published).toEqual([ada.id]);
      await expect(setup.auth.refresh(tabA.refreshToken)).rejects.toThrow(UnauthorizedException);
      await expect(setup.auth.refresh(tabB.refreshToken)).rejects.toThrow(UnauthorizedException);
    });

    it('treats a token issued in the grace like any other: used again later, it ends the session', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');
      await setup.auth.refresh(first.refreshToken);
      const tabB = await setup.auth.refresh(first.refreshToken);
      const next = await setup.auth.refresh(tabB.refreshToken);
      setup.advance(GRACE_MS);

      await expect(setup.auth.refresh(tabB.refreshToken)).rejects.toThrow(UnauthorizedException);

      expect(setup.repository.live(ada.id)).toEqual([]);
      await expect(setup.auth.refresh(next.refreshToken)).rejects.toThrow(UnauthorizedException);
    });

    it('gives no grace once a newer token of the session was used: the old one is a copy', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');
      const second = await setup.auth.refresh(first.refreshToken);
      setup.advance(1_000);
      const third = await setup.auth.refresh(second.refreshToken);

      await expect(setup.auth.refresh(first.refreshToken)).rejects.toThrow(UnauthorizedException);

      expect(setup.repository.live(ada.id)).toEqual([]);
      expect(setup.published).toEqual([ada.id]);
      await expect(setup.auth.refresh(third.refreshToken)).rejects.toThrow(UnauthorizedException);
    });

    it('refuses a used token of an ended session even within the grace', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const first = await signedIn(setup, 'ada@example.com');
      await setup.auth.refresh(first.refreshToken);
      await setup.auth.logout(principalOf(ada.id, first.sessionId), false);

      await expect(setup.auth.refresh(first.refreshToken)).rejects.toThrow(UnauthorizedException);
      expect(setup.repository.sessions.get(first.sessionId)?.revoked).toBe('logout');
    });

    it('refuses an unknown token with 401 and publishes nothing', async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      await signedIn(setup, 'ada@example.com');

      const attempt = setup.auth.refresh('elr_made-up');

      await expect(attempt).rejects.toThrow(UnauthorizedException);
      await expect(attempt).rejects.toMatchObject({ response: { error: { code: 'invalid_refresh_token' } } });
      expect(setup.published).toEqual([]);
    });
  });

  describe('logout', () => {
    it("ends only the caller's session and publishes the change", async () => {
      const ada = user('ada@example.com');
      const setup = await setUp(ada);
      const phone = await signedIn(setup, 'ada@example.com');
      const laptop = await signedIn(setup, 'ada@example.com');

      await setup.auth.logout(principalOf(ada.id, phone.sessionId), false);

      expect(setup.repository.live(ada.id)).toEqual([laptop.sessionId]);
      expect(setup.repository.sessions.get(phone.sessionId)?.revoked).toBe('logout');
      expect(setup.published).toEqual([ada.id]);
      await expect(setup.auth.refresh(phone.refreshToken)).rejects.toThrow(UnauthorizedException);
      await expect(setup.auth.refresh(laptop.refreshToken)).resolves.toMatchObject({ tokenType: 'Bearer' });
    });

    it('ends every session of the account when asked to, and publishes the change', async () => {
      const ada = user('ada@example.com');
      const bob = user('bob@example.com');
      const setup = await setUp(ada, bob);
      const phone = await signedIn(setup, 'ada@example.com');
      await signedIn(setup, 'ada@example.com');
      const bobs = await signedIn(setup, 'bob@example.com');

      await setup.auth.logout(principalOf(ada.id, phone.sessionId), true);

      expect(setup.repository.live(ada.id)).toEqual([]);
      expect(setup.repository.live(bob.id)).toEqual([bobs.sessionId]);
      expect(setup.published).toEqual([ada.id]);
    });
  });
});
