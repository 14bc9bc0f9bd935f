// `./echoloop backup [--out DIR]` and `./echoloop restore BACKUP [--force]`: the database (pg_dump -Fc) and the
// artifact store, with a manifest of checksums. The result on stdout, progress on stderr.
// Exit codes: 0 done, 1 failed, 2 bad arguments, 3 restore refused (nothing was written).
import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { dataSourceOptions } from '@echoloop/persistence';
import path from 'node:path';
import { artifactRoots, entriesIn } from './artifact-store';
import { runBackup } from './backup';
import { DatabaseInspector } from './database-inspector';
import { databaseTarget, scrub } from './database-target';
import { digestIn, sha256File } from './file-digest';
import { DEFAULT_BACKUP_ROOT, parseOpsCommand, USAGE } from './ops-command';
import { PgTools } from './pg-tools';
import { StderrProgress } from './progress';
import { RestoreRefused, restoreSummary, runRestore } from './restore';
import { Tar } from './tar';

/** This code's migrations in the order they run (migrations/index.ts), by the names typeorm_migrations keeps. */
const codeMigrations = (): string[] =>
  dataSourceOptions({ url: LOCAL_DATABASE_URL }).migrations.map((Migration) => new Migration().name);

async function main(argv: readonly string[]): Promise<number> {
  const parsed = parseOpsCommand(argv);
  if (!parsed.ok) {
    process.stderr.write(`${parsed.message}\n${USAGE}`);
    return 2;
  }
  const { command } = parsed;
  // A backup holds every account and conversation: only its owner may read it.
  process.umask(0o077);
  const target = databaseTarget(process.env['DATABASE_URL'] ?? LOCAL_DATABASE_URL);
  const roots = artifactRoots(process.env, process.cwd());
  const progress = new StderrProgress(command.kind);
  // ./echoloop runs from the repository root (the artifact folders' base); paths typed are the caller's.
  const callerDir = process.env['ECHOLOOP_CALLER_DIR'] || process.cwd();
  const common = { inspector: new DatabaseInspector(), pg: new PgTools(), tar: new Tar(), progress };
  try {
    if (command.kind === 'backup') {
      if (process.env['EXPORT_S3_BUCKET']) {
        progress.step(
          `note: exports are kept in the bucket ${process.env['EXPORT_S3_BUCKET']}, which this backup does not hold`,
        );
      }
      const out = command.out ? path.resolve(callerDir, command.out) : path.resolve(DEFAULT_BACKUP_ROOT);
      const { dir } = await runBackup(
        { ...common, digest: sha256File, now: () => new Date() },
        { out, target, roots },
      );
      process.stdout.write(`${dir}\n`);
    } else {
      const report = await runRestore(
        { ...common, digestIn, entriesIn, codeMigrations: codeMigrations() },
        { backup: path.resolve(callerDir, command.backup), target, roots, force: command.force },
      );
      process.stdout.write(restoreSummary(report));
    }
    return 0;
  } catch (error) {
    const message = scrub(error instanceof Error ? error.message : String(error), target.password);
    if (error instanceof RestoreRefused) {
      process.stderr.write(`restore refused, nothing was changed: ${message}\n`);
      return 3;
    }
    process.stderr.write(`${command.kind} failed: ${message}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
