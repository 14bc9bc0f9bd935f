// Exports a dataset of labelled turns from PostgreSQL, with a progress bar and an ETA:
//   npm run dataset:export -- --kind turns|preferences|sft|verl --format jsonl|csv|parquet [--from ISO] [--to ISO]
//     [--character ID] [--conversation ID] [--checkpoint ID] [--experiment ID] [--arm ID] [--labeller-version V]
// The export is recorded as the API's are (GET /v1/exports lists it, origin `cli`) and its files are kept where the
// gateway keeps exports (EXPORT_DIR, or the EXPORT_S3_BUCKET), so that erasing a user it holds removes them.
// Prints the manifest (ids, counts, label versions, sha256 of every file) and where the files are as JSON on stdout.
import { loadEnv } from '@echoloop/config';
import {
  artifactStoreOf,
  DATASET_KINDS,
  datasetFilters,
  ExportsRepository,
  FORMATS,
  pseudonymKey,
  runExportJob,
} from '@echoloop/datasets';
import { dataSourceOptions } from '@echoloop/persistence';
import { every, progressReporter } from '@echoloop/platform';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { exportEnv } from './export-env';

const args = z.object({
  kind: z.enum(DATASET_KINDS),
  format: z.enum(FORMATS).default('jsonl'),
});

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      kind: { type: 'string' },
      format: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      character: { type: 'string' },
      conversation: { type: 'string' },
      checkpoint: { type: 'string' },
      experiment: { type: 'string' },
      arm: { type: 'string' },
      'labeller-version': { type: 'string' },
    },
  });
  const options = args.safeParse(values);
  const filters = datasetFilters.safeParse({
    from: values.from,
    to: values.to,
    characterId: values.character,
    conversationId: values.conversation,
    checkpointId: values.checkpoint,
    experimentId: values.experiment,
    armId: values.arm,
    labellerVersion: values['labeller-version'],
  });
  if (!options.success || !filters.success) {
    const issues = [...(options.error?.issues ?? []), ...(filters.error?.issues ?? [])];
    process.stderr.write(`${issues.map((i) => `--${i.path.join('.')}: ${i.message}`).join('\n')}\n`);
    process.exitCode = 2;
    return;
  }
  const env = loadEnv(exportEnv);
  const db = await new DataSource(
    dataSourceOptions({ url: env.DATABASE_URL, applicationName: 'dataset-export' }),
  ).initialize();
  try {
    const repository = new ExportsRepository(db);
    const store = artifactStoreOf(env);
    const { kind, format } = options.data;
    const job = await repository.begin({ kind, format, filters: filters.data, origin: 'cli' }, new Date());
    const progress = progressReporter(`export ${kind}`, 'turns');
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort(new Error('interrupted')));
    const result = await runExportJob(job, {
      repository,
      store,
      databaseUrl: env.DATABASE_URL,
      pseudonymKey: pseudonymKey(env),
      consentDefault: env.TRAINING_CONSENT_DEFAULT,
      clock: () => new Date(),
      every,
      signal: stop.signal,
      onProgress: (read, total) => progress.report(read, total),
    });
    progress.finish();
    if (result.status === 'failed') throw result.error;
    if (result.status === 'requeued')
      throw new Error('interrupted: the export is queued for the gateway to run');
    process.stdout.write(
      `${JSON.stringify({ dir: store.location(job.id), ...result.manifest, status: result.status })}\n`,
    );
  } finally {
    await db.destroy();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`export failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
