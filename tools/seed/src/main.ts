// Seeds what a fresh local install needs: the default companion character, the services' own API keys. Idempotent.
import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { CharacterEntity, dataSourceOptions } from '@echoloop/persistence';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { ensureGatewayKey, ensureOrchestratorKey } from './service-key';

// Shared with the evaluations, which play the same character.
const ECHO_CARD = path.resolve(__dirname, '../../../data/characters/echo.card.json');
const STATE_DIR = path.resolve(__dirname, '../../../.infra/state');
const ORCHESTRATOR_KEY = path.join(STATE_DIR, 'orchestrator-service.key');
/** The gateway's keys for the staff services it forwards to (tools/stack/apps.sh passes them to it). */
const GATEWAY_KEYS = {
  'rl-orchestrator': path.join(STATE_DIR, 'gateway-rl-orchestrator.key'),
  'eval-runner': path.join(STATE_DIR, 'gateway-eval-runner.key'),
} as const;

async function main(): Promise<void> {
  const db = await new DataSource(
    dataSourceOptions({ url: process.env['DATABASE_URL'] ?? LOCAL_DATABASE_URL, applicationName: 'seed' }),
  ).initialize();
  try {
    const echo = JSON.parse(readFileSync(ECHO_CARD, 'utf8')) as { data: { name: string } };
    const characters = db.getRepository(CharacterEntity);
    if (!(await characters.existsBy({ name: echo.data.name }))) {
      await characters.save({ name: echo.data.name, spec: 'chara_card_v2', card: echo, createdBy: null });
      process.stdout.write(`seeded character ${echo.data.name}\n`);
    }
    if (await ensureOrchestratorKey(db, ORCHESTRATOR_KEY)) {
      process.stdout.write(
        `minted the rl-orchestrator's API key (${path.relative(process.cwd(), ORCHESTRATOR_KEY)})\n`,
      );
    }
    for (const [service, file] of Object.entries(GATEWAY_KEYS) as [keyof typeof GATEWAY_KEYS, string][]) {
      if (await ensureGatewayKey(db, file, service)) {
        process.stdout.write(
          `minted the gateway's API key for ${service} (${path.relative(process.cwd(), file)})\n`,
        );
      }
    }
  } finally {
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
