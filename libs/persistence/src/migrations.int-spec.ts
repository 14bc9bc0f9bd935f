import { createTestDatabase, type TestDatabase } from '@echoloop/testing';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';
import { ConversationEntity, MessageEntity, UserEntity, CharacterEntity } from './entities/index';

const CORE_TABLES = [
  'account_audit',
  'adapter_placements',
  'api_keys',
  'character_assets',
  'characters',
  'checkpoints',
  'conversations',
  'dataset_export_users',
  'dataset_exports',
  'dead_letters',
  'evaluation_episodes',
  'evaluations',
  'experiment_arm_metrics',
  'experiment_assignments',
  'experiment_audit',
  'experiment_user_metrics',
  'experiment_user_pre_periods',
  'experiments',
  'feedback',
  'messages',
  'outbox',
  'pending_signals',
  'refresh_tokens',
  'reward_conversations',
  'reward_labels',
  'reward_turns',
  'rl_jobs',
  'rl_trigger_decisions',
  'sessions',
  'simulator_sessions',
  'socket_io_attachments',
  'turn_gates',
  'user_profiles',
  'users',
];

describe('migrations on PostgreSQL 15', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  const tables = async () =>
    (
      await dataSource.query<{ table_name: string }[]>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'typeorm_migrations' ORDER BY 1`,
      )
    ).map((row) => row.table_name);

  beforeAll(async () => {
    db = await createTestDatabase('migrations');
    dataSource = await new DataSource(dataSourceOptions({ url: db.url })).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('runs on an empty database and creates the core tables on a real PostgreSQL 15', async () => {
    const [row] = await dataSource.query<{ server_version: string }[]>('SHOW server_version');
    expect(row?.server_version).toMatch(/^15\./);
    const applied = await dataSource.runMigrations();
    expect(applied.map((m) => m.name)).toHaveLength(dataSource.migrations.length);
    expect(await tables()).toEqual(CORE_TABLES);
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it('matches the entities exactly: nothing left for migration:generate to emit', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('enforces what the application relies on', async () => {
    const users = dataSource.getRepository(UserEntity);
    const user = await users.save({ email: 'ada@example.com', passwordHash: null, displayName: 'Ada' });
    expect(user.roles).toEqual(['user']);
    await expect(
      users.save({ email: 'ada@example.com', passwordHash: null, displayName: 'Twin' }),
    ).rejects.toThrow(/duplicate key/);

    const character = await dataSource.getRepository(CharacterEntity).save({
      name: 'Mira',
      spec: 'chara_card_v2',
      card: { spec: 'chara_card_v2', data: { name: 'Mira', extensions: { custom: 1 } } },
      createdBy: user.id,
    });
    const conversation = await dataSource
      .getRepository(ConversationEntity)
      .save({ userId: user.id, characterId: character.id, title: null });
    const messages = dataSource.getRepository(MessageEntity);
    const base = {
      conversationId: conversation.id,
      role: 'user' as const,
      content: 'hi',
      clientMessageId: 'c-1',
    };
    await messages.save(messages.create(base));
    await expect(messages.save(messages.create(base))).rejects.toThrow(/messages_client_message_id_key/);

    // Erasure of a user removes their conversations and messages with them.
    await users.delete(user.id);
    expect(await messages.countBy({ conversationId: conversation.id })).toBe(0);
    const kept = await dataSource.getRepository(CharacterEntity).findOneByOrFail({ id: character.id });
    expect(kept.createdBy).toBeNull();
    expect(kept.card).toEqual(character.card);
  });

  it('reverts every migration, leaving no tables, and runs again', async () => {
    for (let i = 0; i < dataSource.migrations.length; i++) await dataSource.undoLastMigration();
    expect(await tables()).toEqual([]);
    await dataSource.runMigrations();
    expect(await tables()).toEqual(CORE_TABLES);
  });
});
