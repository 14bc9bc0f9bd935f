// Exports a dataset of labelled turns from PostgreSQL, with a progress bar and an ETA:
//   npm run dataset:export -- --kind turns|preferences --format jsonl|csv [--from ISO] [--to ISO]
//     [--character ID] [--conversation ID] [--checkpoint ID] [--experiment ID] [--arm ID] [--labeller-version V]
//     [--out DIR]
// Prints the manifest (ids, counts, label versions, sha256 of every file) as JSON on stdout.
import { loadEnv } from '@echoloop/config';
import { DATASET_KINDS, datasetFilters, exportDataset, FORMATS, pseudonymKey } from '@echoloop/datasets';
import { dataSourceOptions } from '@echoloop/persistence';
import { progressReporter } from '@echoloop/platform';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import { exportEnv } from './export-env';

const args = z.object({
  kind: z.enum(DATASET_KINDS),
  format: z.enum(FORMATS).default('jsonl'),
  out: z.string().min(1).optional(),
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
      out: { type: 'string' },
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
    const progress = progressReporter(`export ${options.data.kind}`, 'turns');
    const { dir, manifest } = await exportDataset({
      db,
      kind: options.data.kind,
      format: options.data.format,
      filters: filters.data,
      outDir: options.data.out ?? env.EXPORT_DIR,
      privacy: { pseudonymKey: pseudonymKey(env) },
      consentDefault: env.TRAINING_CONSENT_DEFAULT,
      onProgress: (read, total) => progress.report(read, total),
    });
    progress.finish();
    process.stdout.write(`${JSON.stringify({ dir, ...manifest })}\n`);
  } finally {
    await db.destroy();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`export failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
