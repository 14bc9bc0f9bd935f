import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { CharacterEntity, dataSourceOptions } from '@echoloop/persistence';
import { generateApiKey } from '@echoloop/platform';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ROOT, say } from './output';

export const LOOP_DATABASE = 'echoloop_loop';

export interface LoopDatabase {
  url: string;
  db: DataSource;
  apiKey: string;
  characterId: string;
}

/** Drops and recreates the loop's own database beside the stack's, so a run never mixes with dev data. */
export async function freshDatabase(): Promise<LoopDatabase> {
  const admin = new Client({ connectionString: LOCAL_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${LOOP_DATABASE}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${LOOP_DATABASE}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(LOCAL_DATABASE_URL);
  url.pathname = `/${LOOP_DATABASE}`;
  say('database', `created ${url.toString().replace(/\/\/[^@]*@/, '//')}`);
  const db = await new DataSource(
    dataSourceOptions({ url: url.toString(), applicationName: 'rl-loop' }),
  ).initialize();
  const migrations = await db.runMigrations();
  say('database', `${migrations.length} migrations applied`);
  return { url: url.toString(), db, apiKey: await insertApiKey(db), characterId: await insertCharacter(db) };
}

/** One experimenter key valid on every service the orchestrator and this loop call. */
async function insertApiKey(db: DataSource): Promise<string> {
  const { secret, hash, prefix } = generateApiKey();
  await db.query(
    `INSERT INTO api_keys (name, key_hash, prefix, roles, services, expires_at)
     VALUES ('rl-loop', $1, $2, '{experimenter}', '{chat-gateway,eval-runner,reward-labeller,rl-orchestrator}',
       now() + interval '1 day')`,
    [hash, prefix],
  );
  say('database', `API key ${prefix}… (experimenter) inserted`);
  return secret;
}

/** The default companion, as tools/seed writes it. */
async function insertCharacter(db: DataSource): Promise<string> {
  const card = JSON.parse(readFileSync(path.join(ROOT, 'data/characters/echo.card.json'), 'utf8')) as {
    data: { name: string };
  };
  const saved = await db
    .getRepository(CharacterEntity)
    .save({ name: card.data.name, spec: 'chara_card_v2', card, createdBy: null });
  say('database', `character ${card.data.name} (${saved.id})`);
  return saved.id;
}
