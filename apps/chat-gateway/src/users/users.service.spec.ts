import { type AccountAuditInput, CLOCK } from '@echoloop/platform';
import type { Role, UserEntity } from '@echoloop/persistence';
import { ConflictException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { AccountChanges } from '../auth/account-changes';
import type { Principal } from '../auth/principal';
import { type AccountsTransaction, UsersRepository } from './users.repository';
import { UsersService } from './users.service';

const NOW = new Date('2026-11-24T06:00:00Z');

function account(id: string, roles: Role[], disabledAt: Date | null = null): UserEntity {
  return {
    id,
    email: `${id}@example.com`,
    displayName: id,
    passwordHash: 'scrypt$secret',
    roles,
    disabledAt,
    trainingConsent: null,
    simulated: false,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:00:00Z'),
  };
}

/** Accounts in memory; a transaction's writes and audit rows land only when its work succeeds (commit). */
class InMemoryUsers {
  accounts = new Map<string, UserEntity>();
  audit: AccountAuditInput[] = [];
  events: string[] = [];
  sessionsEnded: string[] = [];

  constructor(...accounts: UserEntity[]) {
    for (const a of accounts) this.accounts.set(a.id, a);
  }

  async transaction<T>(work: (tx: AccountsTransaction) => Promise<T>): Promise<T> {
    const writes: (() => void)[] = [];
    const result = await work({
      lockAccount: async (id) => structuredClone(this.accounts.get(id) ?? null),
      countActiveAdmins: async () =>
        [...this.accounts.values()].filter((a) => a.roles.includes('admin') && !a.disabledAt).length,
      updateAccount: async (id, changes) => {
        writes.push(() => this.accounts.set(id, { ...this.accounts.get(id)!, ...changes }));
      },
      endSessions: async (id) => {
        writes.push(() => this.sessionsEnded.push(id));
      },
      audit: async (entry) => {
        writes.push(() => this.audit.push(entry));
      },
    });
    writes.forEach((write) => write());
    this.events.push('commit');
    return result;
  }

  find = async (id: string) => this.accounts.get(id) ?? null;
  auditTrail = async () => [];
  list = async () => [...this.accounts.values()];
}

async function setUp(store: InMemoryUsers) {
  const changes = new AccountChanges();
  const published: string[] = [];
  changes.subscribe((userId) => {
    store.events.push('publish');
    published.push(userId);
  });
  const module = await Test.createTestingModule({
    providers: [
      UsersService,
      { provide: UsersRepository, useValue: store },
      { provide: AccountChanges, useValue: changes },
      { provide: CLOCK, useValue: () => NOW },
      { provide: PinoLogger, useValue: { error: jest.fn() } },
    ],
  }).compile();
  return { users: module.get(UsersService), published, changes, logger: module.get(PinoLogger) };
}

const admin = (userId: string): Principal => ({ userId, roles: ['admin'], kind: 'user' });

describe('UsersService', () => {
  it('disables an account, audits who did it with before and after, and publishes after the commit', async () => {
    const store = new InMemoryUsers(account('ada', ['user', 'admin']), account('bob', ['user']));
    const { users, published } = await setUp(store);

    const view = await users.update(admin('ada'), 'bob', { disabled: true });

    expect(view).toMatchObject({ id: 'bob', disabled: true, disabledAt: NOW, roles: ['user'] });
    expect(view).not.toHaveProperty('passwordHash');
    expect(store.accounts.get('bob')?.disabledAt).toEqual(NOW);
    expect(store.audit).toEqual([
      {
        targetId: 'bob',
        actor: 'user',
        actorId: 'ada',
        action: 'updated',
        before: { disabled: false },
        after: { disabled: true },
        at: NOW,
      },
    ]);
    expect(published).toEqual(['bob']);
    expect(store.events).toEqual(['commit', 'publish']);
    expect(store.sessionsEnded).toEqual(['bob']);
  });

  it('grants roles in canonical order and audits only what changed', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']), account('bob', ['user']));
    const { users } = await setUp(store);

    await users.update(admin('ada'), 'bob', { roles: ['admin', 'user'], disabled: false });

    expect(store.accounts.get('bob')?.roles).toEqual(['user', 'admin']);
    expect(store.sessionsEnded).toEqual([]);
    expect(store.audit).toEqual([
      expect.objectContaining({ before: { roles: ['user'] }, after: { roles: ['user', 'admin'] } }),
    ]);
  });

  it('writes nothing and publishes nothing when the patch changes nothing', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']), account('bob', ['analyst', 'user']));
    const { users, published } = await setUp(store);

    await users.update(admin('ada'), 'bob', { roles: ['user', 'analyst'], disabled: false });

    expect(store.audit).toEqual([]);
    expect(published).toEqual([]);
  });

  it.each([
    ['demoting', { roles: ['user'] as Role[] }],
    ['disabling', { disabled: true }],
  ])('refuses %s the last active admin with 409 last_admin', async (_, patch) => {
    const disabledAdmin = account('cy', ['admin'], new Date('2026-02-01T00:00:00Z'));
    const store = new InMemoryUsers(
      account('ada', ['admin']),
      account('bob', ['user', 'admin']),
      disabledAdmin,
    );
    const { users, published } = await setUp(store);
    await users.update(admin('bob'), 'bob', { roles: ['user'] });
    store.audit = [];
    published.length = 0;

    const attempt = users.update(admin('bob'), 'ada', patch);

    await expect(attempt).rejects.toThrow(ConflictException);
    await expect(attempt).rejects.toMatchObject({ response: { error: { code: 'last_admin' } } });
    expect(store.accounts.get('ada')?.roles).toEqual(['admin']);
    expect(store.audit).toEqual([]);
    expect(published).toEqual([]);
  });

  it('lets an admin step down while another admin remains', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']), account('bob', ['admin']));
    const { users } = await setUp(store);

    await expect(users.update(admin('ada'), 'ada', { roles: ['user'] })).resolves.toMatchObject({
      roles: ['user'],
    });
  });

  it('refuses an admin disabling themselves even when other admins remain', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']), account('bob', ['admin']));
    const { users, published } = await setUp(store);

    await expect(users.update(admin('ada'), 'ada', { disabled: true })).rejects.toMatchObject({
      response: { error: { code: 'cannot_disable_self' } },
    });
    expect(store.accounts.get('ada')?.disabledAt).toBeNull();
    expect(published).toEqual([]);
  });

  it('is a 404 for an unknown account, with nothing written', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']));
    const { users, published } = await setUp(store);

    await expect(users.update(admin('ada'), 'ghost', { disabled: true })).rejects.toThrow(NotFoundException);
    expect(store.audit).toEqual([]);
    expect(published).toEqual([]);
  });

  it('publishes nothing when the transaction fails', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']), account('bob', ['user']));
    const { users, published } = await setUp(store);
    const transaction = store.transaction.bind(store);
    store.transaction = (work) =>
      transaction(async (tx) => {
        await work(tx);
        throw new Error('commit failed');
      });

    await expect(users.update(admin('ada'), 'bob', { disabled: true })).rejects.toThrow('commit failed');
    expect(store.accounts.get('bob')?.disabledAt).toBeNull();
    expect(published).toEqual([]);
  });

  it('keeps a committed change when a listener fails, and logs only ids', async () => {
    const store = new InMemoryUsers(account('ada', ['admin']), account('bob', ['user']));
    const { users, changes, logger } = await setUp(store);
    changes.subscribe(() => {
      throw new Error('socket hub down');
    });

    await expect(users.update(admin('ada'), 'bob', { disabled: true })).resolves.toMatchObject({
      disabled: true,
    });
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ userId: 'bob' }),
      'account change listener failed',
    );
  });

  it('pages with one extra row to tell whether more follow', async () => {
    const store = new InMemoryUsers(account('a', ['user']), account('b', ['user']), account('c', ['user']));
    const { users } = await setUp(store);

    expect(await users.list({ limit: 2, offset: 0 })).toMatchObject({
      items: [{ id: 'a' }, { id: 'b' }],
      nextOffset: 2,
    });
  });
});
