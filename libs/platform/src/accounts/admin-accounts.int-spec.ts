import { AccountAuditEntity, dataSourceOptions, UserEntity } from '@echoloop/persistence';
import { createTestDatabase, type TestDatabase } from '@echoloop/testing';
import { DataSource } from 'typeorm';
import { ensureBootstrapAdmin } from './admin-accounts';
import { verifyPassword } from './password-hasher';

describe('the bootstrap admin on PostgreSQL', () => {
  let database: TestDatabase;
  const replicas: DataSource[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('bootstrap');
    for (let i = 0; i < 2; i++) {
      replicas.push(await new DataSource(dataSourceOptions({ url: database.url, poolSize: 2 })).initialize());
    }
    await replicas[0]!.runMigrations();
  });

  afterAll(async () => {
    await Promise.all(replicas.map((db) => db.destroy()));
    await database?.drop();
  });

  it('is created once when two replicas start together, and never by promoting a registered account', async () => {
    const [a, b] = replicas as [DataSource, DataSource];
    const users = a.getRepository(UserEntity);
    await users.save({ email: 'squatter@example.com', passwordHash: null, displayName: 'Squatter' });
    expect(
      await ensureBootstrapAdmin(a, { email: 'squatter@example.com', password: 'bootstrap passphrase' }),
    ).toEqual({ outcome: 'email_taken' });
    expect((await users.findOneByOrFail({ email: 'squatter@example.com' })).roles).toEqual(['user']);

    const outcomes = await Promise.all([
      ensureBootstrapAdmin(a, { email: 'first@example.com', password: 'bootstrap passphrase' }),
      ensureBootstrapAdmin(b, { email: 'second@example.com', password: 'bootstrap passphrase' }),
    ]);

    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['admin_exists', 'created']);
    const admins = await users.createQueryBuilder('u').where(`'admin' = ANY(u.roles)`).getMany();
    expect(admins).toHaveLength(1);
    expect(admins[0]).toMatchObject({ id: outcomes.find((o) => o.userId)?.userId, roles: ['user', 'admin'] });
    await expect(verifyPassword('bootstrap passphrase', admins[0]!.passwordHash!)).resolves.toBe(true);
    expect(await a.getRepository(AccountAuditEntity).find()).toEqual([
      expect.objectContaining({ targetId: admins[0]!.id, actor: 'bootstrap', action: 'created' }),
    ]);
  });
});
