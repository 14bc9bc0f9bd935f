import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ArtifactRoot, isWithin } from './artifact-store';
import type { DatabaseInspector } from './database-inspector';
import type { DatabaseTarget } from './database-target';
import { type BackupFile, DUMP_FILE, type Manifest, MANIFEST_FILE, manifestSchema } from './manifest';
import type { PgTools } from './pg-tools';
import { formatBytes, type Progress } from './progress';
import type { Tar } from './tar';

export interface BackupDeps {
  inspector: Pick<DatabaseInspector, 'facts'>;
  pg: Pick<PgTools, 'version' | 'dump'>;
  tar: Pick<Tar, 'create'>;
  digest: (file: string) => Promise<{ bytes: number; sha256: string } | null>;
  progress: Progress;
  now: () => Date;
}

export interface BackupRequest {
  /** The folder the backup's own folder is made in (absolute). */
  out: string;
  target: DatabaseTarget;
  roots: ArtifactRoot[];
}

/** `2025-01-02T03:04:05.678Z` → `20250102T030405Z`. */
export const backupStamp = (at: Date): string => at.toISOString().replace(/[-:]|\.\d+/g, '');

/**
 * The database first, then the artifact folders: files are written before the rows that name them, so the
 * archives hold at least every adapter and export the dump refers to. Made in `<name>.partial`, renamed when
 * complete: a folder without the suffix is a whole backup.
 */
export async function runBackup(
  deps: BackupDeps,
  request: BackupRequest,
): Promise<{ dir: string; manifest: Manifest }> {
  const { progress } = deps;
  const { target } = request;
  const inside = request.roots.find((root) => isWithin(request.out, root.dir));
  if (inside)
    throw new Error(`--out ${request.out} is inside the artifact folder ${inside.dir} it would archive`);

  const facts = await deps.inspector.facts(target);
  progress.step(
    `database ${target.display}: PostgreSQL ${facts.serverVersion}, ${facts.tables} tables, migration head ` +
      `${facts.migrationHead?.name ?? '(none)'}`,
  );
  const pgDumpVersion = await deps.pg.version('pg_dump');
  const createdAt = deps.now();
  const dir = path.join(request.out, `echoloop-${backupStamp(createdAt)}`);
  const partial = `${dir}.partial`;
  await mkdir(request.out, { recursive: true, mode: 0o700 });
  await mkdir(partial, { mode: 0o700 });
  try {
    const files: BackupFile[] = [];
    const record = async (name: string) => {
      const digest = await deps.digest(path.join(partial, name));
      if (!digest) throw new Error(`${name} was not written`);
      files.push({ name, ...digest });
      return digest;
    };

    progress.step(`dumping the database with ${pgDumpVersion}`);
    await deps.pg.dump(target, path.join(partial, DUMP_FILE), (table) => progress.step(`  table ${table}`));
    progress.step(`${DUMP_FILE}: ${formatBytes((await record(DUMP_FILE)).bytes)}`);

    await mkdir(path.join(partial, 'artifacts'));
    const artifacts: Manifest['artifacts'] = [];
    for (const root of request.roots) {
      const archive = `artifacts/${root.name}.tar`;
      progress.step(`archiving ${root.name} (${root.variable}=${root.dir})`);
      const entries = await deps.tar.create(root.dir, path.join(partial, archive));
      const { bytes } = await record(archive);
      progress.step(`${archive}: ${entries} files, ${formatBytes(bytes)}`);
      artifacts.push({ name: root.name, source: root.dir, archive, entries });
    }

    const { serverVersion, migrationHead, migrations, tables } = facts;
    const manifest = manifestSchema.parse({
      format: 'echoloop-backup',
      version: 1,
      createdAt: createdAt.toISOString(),
      database: { name: target.name, serverVersion, migrationHead, migrations, tables, dump: DUMP_FILE },
      pgDumpVersion,
      artifacts,
      files,
    } satisfies Manifest);
    await writeFile(path.join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    await rename(partial, dir);
    progress.step(`backup complete: ${files.length} files and ${MANIFEST_FILE} in ${dir}`);
    return { dir, manifest };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}
