import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { CharacterEntity, dataSourceOptions } from '@echoloop/persistence';
import { generateApiKey } from '@echoloop/platform';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { ROOT, say } from './output';

export interface LoopDatabase {
  url: string;
  db: DataSource;
  apiKey: string;
  characterId: string;
}

/**
 * The stack's own database, the one `up` serves the web app from, so the loop's jobs, gate reports, experiments and
 * conversations are there afterwards. Its users are marked simulated (simulated-users.ts), which keeps them out of
 * every export, turn listing and refresh of people's data; the loop's refreshes train on them alone.
 */
export async function loopDatabase(runId: string): Promise<LoopDatabase> {
  const db = await new DataSource(
    dataSourceOptions({ url: LOCAL_DATABASE_URL, applicationName: 'rl-loop' }),
  ).initialize();
  const migrations = await db.runMigrations();
  say(
    'database',
    `${LOCAL_DATABASE_URL.replace(/\/\/[^@]*@/, '//')}: ${migrations.length} migrations applied`,
  );
  return {
    url: LOCAL_DATABASE_URL,
    db,
    apiKey: await insertApiKey(db, runId),
    characterId: await echoCharacter(db),
  };
}

/** One experimenter key of this run, valid for a day on every service the orchestrator and this loop call. */
async function insertApiKey(db: DataSource, runId: string): Promise<string> {
  const { secret, hash, prefix } = generateApiKey();
  await db.query(
    `INSERT INTO api_keys (name, key_hash, prefix, roles, services, expires_at)
     VALUES ($3, $1, $2, '{experimenter}', '{chat-gateway,eval-runner,reward-labeller,rl-orchestrator}',
       now() + interval '1 day')`,
    [hash, prefix, `rl-loop ${runId}`],
  );
  say('database', `API key ${prefix}… (experimenter) inserted`);
  return secret;
}

/** The default companion, as tools/seed writes it (written here when the database was never seeded). */
async function echoCharacter(db: DataSource): Promise<string> {
  const card = JSON.parse(readFileSync(path.join(ROOT, 'data/characters/echo.card.json'), 'utf8')) as {
    data: { name: string };
  };
  const characters = db.getRepository(CharacterEntity);
  const found =
    (await characters.findOneBy({ name: card.data.name })) ??
    (await characters.save({ name: card.data.name, spec: 'chara_card_v2', card, createdBy: null }));
  say('database', `character ${card.data.name} (${found.id})`);
  return found.id;
}
