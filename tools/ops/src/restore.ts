import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactRoot } from './artifact-store';
import type { DatabaseInspector } from './database-inspector';
import type { DatabaseTarget } from './database-target';
import {
  checksumProblems,
  type FileDigest,
  type Manifest,
  MANIFEST_FILE,
  ManifestError,
  parseManifest,
} from './manifest';
import type { PgTools } from './pg-tools';
import type { Progress } from './progress';
import { dumpVersionProblem, schemaVerdict } from './restore-checks';
import type { Tar } from './tar';

/** A restore that did not start: nothing was written. */
export class RestoreRefused extends Error {}

export interface RestoreDeps {
  inspector: Pick<DatabaseInspector, 'facts'>;
  pg: Pick<PgTools, 'version' | 'restore'>;
  tar: Pick<Tar, 'extract'>;
  /** The digest of the files in a backup folder. */
  digestIn: (dir: string) => FileDigest;
  /** Entries in a folder (0 when missing). */
  entriesIn: (dir: string) => Promise<number>;
  progress: Progress;
  /** This code's migrations, in the order they run. */
  codeMigrations: readonly string[];
}

export interface RestoreRequest {
  backup: string;
  target: DatabaseTarget;
  roots: ArtifactRoot[];
  force: boolean;
}

export interface RestoreReport {
  backup: string;
  manifest: Manifest;
  database: { display: string; replaced: boolean };
  artifacts: { name: string; dir: string; entries: number }[];
  /** Migrations of this code newer than the backup's head: run them before the apps start. */
  behind: string[];
  warnings: string[];
}

async function readManifest(dir: string): Promise<Manifest> {
  const text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
      throw new RestoreRefused(`${dir} holds no ${MANIFEST_FILE}: not a backup folder`);
    }
    throw error;
  });
  try {
    return parseManifest(text);
  } catch (error) {
    if (error instanceof ManifestError) throw new RestoreRefused(error.message);
    throw error;
  }
}

/**
 * Every check first (checksums, schema, tool versions, empty targets), then the database, then the artifacts.
 * A refusal leaves the database and the folders untouched.
 */
export async function runRestore(deps: RestoreDeps, request: RestoreRequest): Promise<RestoreReport> {
  const { progress } = deps;
  const { target } = request;
  const dir = path.basename(request.backup) === MANIFEST_FILE ? path.dirname(request.backup) : request.backup;
  const manifest = await readManifest(dir);
  const head = manifest.database.migrationHead;
  progress.step(
    `backup of ${manifest.database.name} made ${manifest.createdAt}, migration head ${head?.name ?? '(none)'}`,
  );

  progress.step(`verifying the sha256 of ${manifest.files.length} files`);
  const damaged = await checksumProblems(manifest, deps.digestIn(dir));
  if (damaged.length > 0) {
    throw new RestoreRefused(`the backup is damaged or was changed: ${damaged.join('; ')}`);
  }
  const verdict = schemaVerdict(head, deps.codeMigrations);
  if (verdict.refusal) throw new RestoreRefused(verdict.refusal);
  const versionProblem = dumpVersionProblem(manifest.pgDumpVersion, await deps.pg.version('pg_restore'));
  if (versionProblem) throw new RestoreRefused(versionProblem);

  const facts = await deps.inspector.facts(target);
  const replaced = facts.relations > 0;
  const occupied: string[] = [];
  for (const artifact of manifest.artifacts) {
    const root = rootOf(request.roots, artifact.name);
    const entries = await deps.entriesIn(root.dir);
    if (entries > 0) occupied.push(`${root.dir} (${root.variable}, ${entries} entries)`);
  }
  if (!request.force && (replaced || occupied.length > 0)) {
    const what = [
      ...(replaced ? [`database ${target.display} is not empty (${facts.tables} tables)`] : []),
      ...occupied.map((folder) => `${folder} is not empty`),
    ];
    throw new RestoreRefused(
      `${what.join('; ')}: restore into an empty database and empty folders, or pass --force to replace ` +
        'what the backup holds (the database with pg_restore --clean)',
    );
  }
  progress.step('the backup is whole and this code can run on its schema');

  progress.step(`restoring database ${target.display}${replaced ? ' over its contents (--force)' : ''}`);
  await deps.pg.restore(target, path.join(dir, manifest.database.dump), replaced, (table) =>
    progress.step(`  table ${table}`),
  );
  const artifacts: RestoreReport['artifacts'] = [];
  const warnings: string[] = [];
  for (const artifact of manifest.artifacts) {
    const root = rootOf(request.roots, artifact.name);
    progress.step(`restoring ${artifact.name} into ${root.dir}`);
    await deps.tar.extract(path.join(dir, artifact.archive), root.dir);
    artifacts.push({ name: artifact.name, dir: root.dir, entries: artifact.entries });
    if (artifact.name === 'rl' && artifact.source !== root.dir && artifact.entries > 0) {
      warnings.push(
        `checkpoints name their adapters by absolute path under ${artifact.source}; they were restored to ` +
          `${root.dir}: set ${root.variable}=${artifact.source} or move the folder there`,
      );
    }
  }
  return {
    backup: dir,
    manifest,
    database: { display: target.display, replaced },
    artifacts,
    behind: verdict.behind,
    warnings,
  };
}

function rootOf(roots: readonly ArtifactRoot[], name: string): ArtifactRoot {
  const root = roots.find((r) => r.name === name);
  if (!root) throw new RestoreRefused(`no folder is configured for the backup's ${name} artifacts`);
  return root;
}

/** What a restore prints on stdout. */
export function restoreSummary(report: RestoreReport): string {
  const { manifest } = report;
  const lines = [
    `restored ${report.backup} (made ${manifest.createdAt}):`,
    `  database   ${report.database.display}: ${manifest.database.tables} tables, migration head ` +
      `${manifest.database.migrationHead?.name ?? '(none)'}${report.database.replaced ? ' (replaced its contents)' : ''}`,
    ...report.artifacts.map((a) => `  ${a.name.padEnd(10)} ${a.dir}: ${a.entries} files`),
  ];
  if (report.behind.length > 0) {
    lines.push(
      `this code has ${report.behind.length} newer migrations (${report.behind.join(', ')}): run ` +
        '`npm run migration:run` (or ./echoloop up) before the apps start',
    );
  }
  return `${[...lines, ...report.warnings.map((w) => `warning: ${w}`)].join('\n')}\n`;
}
