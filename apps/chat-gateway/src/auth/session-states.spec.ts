import { CLOCK, MetricsService } from '@echoloop/platform';
import type { Role } from '@echoloop/persistence';
import { Test } from '@nestjs/testing';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { GATEWAY_ENV, gatewayEnv } from '../env';
import { AccountChanges, EVERY_ACCOUNT } from './account-changes';
import { type AccountState, AuthRepository } from './auth.repository';
import { SessionStates } from './session-states';
import { TokenService } from './token.service';

const SECRET = 'x'.repeat(32);
const CACHE_MS = 30_000;

/** Accounts in memory, as AuthRepository.accountState reads them; `calls` counts the round trips. */
class FakeAccounts {
  accounts = new Map<string, AccountState>();
  calls: string[] = [];
  times: Date[] = [];

  async accountState(userId: string, now: Date): Promise<AccountState | null> {
    this.calls.push(userId);
    this.times.push(now);
    const account = this.accounts.get(userId);
    return account ? { ...account, sessions: new Map(account.sessions) } : null;
  }

  add(userId: string, roles: Role[], sessions: Record<string, Date>, disabled = false): void {
    this.accounts.set(userId, { roles, disabled, sessions: new Map(Object.entries(sessions)) });
  }

  update(userId: string, change: Partial<AccountState>): void {
    this.accounts.set(userId, { ...this.accounts.get(userId)!, ...change });
  }
}

async function setUp() {
  const repository = new FakeAccounts();
  let now = new Date('2026-11-24T10:00:00Z');
  const module = await Test.createTestingModule({
    providers: [
      SessionStates,
      TokenService,
      AccountChanges,
      { provide: AuthRepository, useValue: repository },
      { provide: CLOCK, useValue: () => now },
      {
        provide: GATEWAY_ENV,
        useValue: gatewayEnv.parse({
          JWT_SECRET: SECRET,
          JWT_TTL_SECONDS: '900',
          AUTH_STATE_CACHE_MS: String(CACHE_MS),
        }),
      },
      { provide: MetricsService, useValue: new MetricsService('test') },
    ],
  }).compile();
  await module.init();
  const tokens = module.get(TokenService);
  return {
    states: module.get(SessionStates),
    changes: module.get(AccountChanges),
    repository,
    token: (userId: string, sessionId: string) => tokens.issue({ userId, sessionId }),
    at: () => now,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

describe('SessionStates', () => {
  const ada = randomUUID();
  const bob = randomUUID();
  const adaSession = randomUUID();
  const bobSession = randomUUID();

  async function withAccounts() {
    const setup = await setUp();
    const later = new Date(setup.at().getTime() + 30 * 86_400_000);
    setup.repository.add(ada, ['user'], { [adaSession]: later });
    setup.repository.add(bob, ['user', 'admin'], { [bobSession]: later });
    return { ...setup, later };
  }

  it("answers with the account's current roles and the token's session", async () => {
    const { states, token } = await withAccounts();

    await expect(states.authenticate(await token(bob, bobSession))).resolves.toEqual({
      userId: bob,
      sessionId: bobSession,
      roles: ['user', 'admin'],
      kind: 'user',
    });
  });

  it('ignores roles written into a token: only the account decides', async () => {
    const { states } = await withAccounts();
    const withRoles = await new SignJWT({ sid: adaSession, roles: ['admin'] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(ada)
      .setIssuer('echoloop')
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(new TextEncoder().encode(SECRET));

    await expect(states.authenticate(withRoles)).resolves.toMatchObject({ userId: ada, roles: ['user'] });
  });

  it('refuses a token it cannot verify without asking the repository', async () => {
    const { states, repository } = await withAccounts();

    await expect(states.authenticate('not a token')).resolves.toBeUndefined();
    expect(repository.calls).toEqual([]);
  });

  it('serves a second request from the cache', async () => {
    const { states, repository, token } = await withAccounts();
    const access = await token(ada, adaSession);

    await states.authenticate(access);
    await expect(states.authenticate(access)).resolves.toMatchObject({ userId: ada });

    expect(repository.calls).toEqual([ada]);
  });

  it('reloads at once when the account changes: new roles, then disabled', async () => {
    const { states, changes, repository, token } = await withAccounts();
    const access = await token(ada, adaSession);
    await states.authenticate(access);

    repository.update(ada, { roles: ['user', 'analyst'] });
    await expect(states.authenticate(access)).resolves.toMatchObject({ roles: ['user'] });
    await changes.publish(ada);
    await expect(states.authenticate(access)).resolves.toMatchObject({ roles: ['user', 'analyst'] });

    repository.update(ada, { disabled: true });
    await changes.publish(ada);
    await expect(states.authenticate(access)).resolves.toBeUndefined();
    expect(repository.calls).toEqual([ada, ada, ada]);
  });

  it("a change to one account leaves other accounts' cached states alone", async () => {
    const { states, changes, repository, token } = await withAccounts();
    await states.authenticate(await token(ada, adaSession));
    await states.authenticate(await token(bob, bobSession));

    await changes.publish(ada);
    await states.authenticate(await token(bob, bobSession));

    expect(repository.calls).toEqual([ada, bob]);
  });

  it('drops every cached account when every account may have changed', async () => {
    const { states, changes, repository, token } = await withAccounts();
    await states.authenticate(await token(ada, adaSession));
    await states.authenticate(await token(bob, bobSession));
    repository.update(bob, { disabled: true });

    await changes.publish(EVERY_ACCOUNT);

    await expect(states.authenticate(await token(bob, bobSession))).resolves.toBeUndefined();
    await expect(states.authenticate(await token(ada, adaSession))).resolves.toMatchObject({ userId: ada });
    expect(repository.calls).toEqual([ada, bob, bob, ada]);
  });

  it('refuses a disabled account', async () => {
    const { states, repository, token } = await withAccounts();
    repository.update(ada, { disabled: true });

    await expect(states.authenticate(await token(ada, adaSession))).resolves.toBeUndefined();
  });

  it('refuses a deleted account, and keeps refusing from the cache', async () => {
    const { states, repository, token } = await withAccounts();
    repository.accounts.delete(ada);
    const access = await token(ada, adaSession);

    await expect(states.authenticate(access)).resolves.toBeUndefined();
    await expect(states.authenticate(access)).resolves.toBeUndefined();
    expect(repository.calls).toEqual([ada]);
  });

  it('refuses a revoked session while other sessions of the account go on', async () => {
    const { states, changes, repository, token, later } = await withAccounts();
    const phone = randomUUID();
    repository.add(ada, ['user'], { [adaSession]: later, [phone]: later });
    await states.authenticate(await token(ada, phone));

    repository.add(ada, ['user'], { [adaSession]: later });
    await changes.publish(ada);

    await expect(states.authenticate(await token(ada, phone))).resolves.toBeUndefined();
    await expect(states.authenticate(await token(ada, adaSession))).resolves.toMatchObject({
      sessionId: adaSession,
    });
  });

  it('refuses a session whose end has come, after reading the account once more', async () => {
    const { states, repository, token, advance, at } = await withAccounts();
    repository.add(ada, ['user'], { [adaSession]: new Date(at().getTime() + 10_000) });
    const access = await token(ada, adaSession);
    await expect(states.authenticate(access)).resolves.toMatchObject({ userId: ada });

    advance(10_000);

    await expect(states.authenticate(access)).resolves.toBeUndefined();
    expect(repository.calls).toEqual([ada, ada]);
  });

  it('accepts a session refreshed elsewhere after its cached end has passed', async () => {
    const { states, repository, token, advance, at } = await withAccounts();
    repository.add(ada, ['user'], { [adaSession]: new Date(at().getTime() + 10_000) });
    const access = await token(ada, adaSession);
    await expect(states.authenticate(access)).resolves.toMatchObject({ userId: ada });

    // Refreshed on another replica: the session's end moved, and no notification reached this one yet.
    repository.add(ada, ['user'], { [adaSession]: new Date(at().getTime() + 86_400_000) });
    advance(10_000);

    await expect(states.authenticate(access)).resolves.toMatchObject({ userId: ada, sessionId: adaSession });
  });

  it('accepts a session started elsewhere after the state was cached, with exactly one reload', async () => {
    const { states, repository, token, later } = await withAccounts();
    await states.authenticate(await token(ada, adaSession));
    const laptop = randomUUID();
    repository.add(ada, ['user'], { [adaSession]: later, [laptop]: later });

    await expect(states.authenticate(await token(ada, laptop))).resolves.toMatchObject({ sessionId: laptop });
    expect(repository.calls).toEqual([ada, ada]);

    await states.authenticate(await token(ada, laptop));
    await states.authenticate(await token(ada, adaSession));
    expect(repository.calls).toEqual([ada, ada]);
  });

  it('looks only once more for a session that does not exist', async () => {
    const { states, repository, token } = await withAccounts();
    await states.authenticate(await token(ada, adaSession));

    await expect(states.authenticate(await token(ada, randomUUID()))).resolves.toBeUndefined();

    expect(repository.calls).toEqual([ada, ada]);
  });

  it('does not look again when the state it just read lacks the session', async () => {
    const { states, repository, token } = await withAccounts();

    await expect(states.authenticate(await token(ada, randomUUID()))).resolves.toBeUndefined();

    expect(repository.calls).toEqual([ada]);
  });

  it('trusts a cached state for AUTH_STATE_CACHE_MS by the clock, then reads the account again', async () => {
    const { states, repository, token, advance } = await withAccounts();
    const access = await token(ada, adaSession);
    await states.authenticate(access);
    repository.update(ada, { roles: ['user', 'analyst'] });

    advance(CACHE_MS - 1);
    await expect(states.authenticate(access)).resolves.toMatchObject({ roles: ['user'] });
    expect(repository.calls).toEqual([ada]);

    advance(1);
    await expect(states.authenticate(access)).resolves.toMatchObject({ roles: ['user', 'analyst'] });
    expect(repository.calls).toEqual([ada, ada]);
  });

  it('asks the repository for the sessions usable at the injected time', async () => {
    const { states, repository, token, at } = await withAccounts();

    await states.authenticate(await token(ada, adaSession));

    expect(repository.times).toEqual([at()]);
  });
});
