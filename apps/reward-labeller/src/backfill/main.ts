import { loadEnv } from '@echoloop/config';
import { progressReporter } from '@echoloop/platform';
import { NestFactory } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import { parseArgs } from 'node:util';
import type { DataSource } from 'typeorm';
import { AppModule } from '../app.module';
import { labellerEnv } from '../env';
import { TurnLabeller } from '../labelling/turn-labeller.service';
import { backfill } from './backfill';

const USAGE = `Re-labels stored turns with a new labeller version (old labels stay; unique per version).

  npm run labeller:backfill -- --from 2026-11-01T00:00:00Z --to 2026-11-21T00:00:00Z --version labeller-v2

The judge endpoint and reward configuration come from the environment (JUDGE_*, REWARD_CONFIG), as for the app.`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      version: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const from = new Date(values.from ?? '');
  const to = new Date(values.to ?? '');
  if (values.help || !values.version || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) {
    process.stderr.write(`${USAGE}\n`);
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  // No consumers, no sweeper: only the labelling parts of the app, and its outbox relay for the announcements.
  const env = loadEnv(labellerEnv, { ...process.env, LABELLER_VERSION: values.version, LOG_LEVEL: 'warn' });
  const app = await NestFactory.createApplicationContext(AppModule.register(env, { consume: false }), {
    logger: ['error', 'warn'],
  });
  try {
    const progress = progressReporter(`backfill ${values.version}`, 'turns');
    const result = await backfill(
      app.get<DataSource>(getDataSourceToken()),
      app.get(TurnLabeller),
      { from, to },
      env.LEAVE_AFTER_MS,
      ({ done, total }) => progress.report(done, total),
    );
    progress.finish();
    process.stdout.write(`${JSON.stringify({ version: values.version, ...result })}\n`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
