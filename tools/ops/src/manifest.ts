import path from 'node:path';
import { z } from 'zod';

export const MANIFEST_FILE = 'manifest.json';
export const DUMP_FILE = 'database.dump';
export const ARTIFACT_NAMES = ['exports', 'rl'] as const;
export type ArtifactName = (typeof ARTIFACT_NAMES)[number];

/** A path inside the backup folder: relative, normalised, never leaving it. */
const inBackup = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (name) =>
      !path.isAbsolute(name) && path.posix.normalize(name) === name && !name.split('/').includes('..'),
    'must be a path inside the backup folder',
  );

export const migrationRow = z.object({
  id: z.number().int(),
  timestamp: z.number().int(),
  name: z.string().min(1),
});
export type MigrationRow = z.infer<typeof migrationRow>;

export const backupFile = z.object({
  name: inBackup,
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type BackupFile = z.infer<typeof backupFile>;

/** What manifest.json says: where the backup came from, its schema head, and the sha256 of every file beside it. */
export const manifestSchema = z
  .object({
    format: z.literal('echoloop-backup'),
    version: z.literal(1),
    createdAt: z.iso.datetime(),
    database: z.object({
      name: z.string().min(1),
      serverVersion: z.string(),
      /** The last row of typeorm_migrations (null: a database never migrated). */
      migrationHead: migrationRow.nullable(),
      migrations: z.number().int().min(0),
      tables: z.number().int().min(0),
      dump: inBackup,
    }),
    pgDumpVersion: z.string().min(1),
    artifacts: z.array(
      z.object({
        name: z.enum(ARTIFACT_NAMES),
        /** The folder it was archived from (absolute), as the database's adapter paths may name it. */
        source: z.string().min(1),
        archive: inBackup,
        /** Files and links in the archive (folders not counted). */
        entries: z.number().int().min(0),
      }),
    ),
    files: z.array(backupFile).min(1),
  })
  .superRefine((manifest, ctx) => {
    const names = manifest.files.map((file) => file.name);
    if (new Set(names).size !== names.length)
      ctx.addIssue({ code: 'custom', message: 'files repeat a name' });
    const artifactNames = manifest.artifacts.map((a) => a.name);
    if (new Set(artifactNames).size !== artifactNames.length) {
      ctx.addIssue({ code: 'custom', message: 'artifacts repeat a name' });
    }
    for (const needed of [manifest.database.dump, ...manifest.artifacts.map((a) => a.archive)]) {
      if (!names.includes(needed))
        ctx.addIssue({ code: 'custom', message: `${needed} is not among the files` });
    }
    if (names.includes(MANIFEST_FILE)) ctx.addIssue({ code: 'custom', message: 'lists itself' });
  });
export type Manifest = z.infer<typeof manifestSchema>;

export class ManifestError extends Error {}

/** manifest.json's text, checked; a ManifestError naming every problem otherwise. */
export function parseManifest(text: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ManifestError(`${MANIFEST_FILE} is not JSON`);
  }
  const result = manifestSchema.safeParse(json);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.join('.') || '(manifest)'}: ${issue.message}`,
  );
  throw new ManifestError(`${MANIFEST_FILE} is not an Echoloop backup manifest: ${problems.join('; ')}`);
}

/** What a file beside the manifest holds now; null when it is missing. */
export type FileDigest = (name: string) => Promise<Omit<BackupFile, 'name'> | null>;

/** Every file the manifest lists, checked against its size and sha256: one line per file that differs. */
export async function checksumProblems(manifest: Manifest, digest: FileDigest): Promise<string[]> {
  const problems: string[] = [];
  for (const expected of manifest.files) {
    const actual = await digest(expected.name);
    if (!actual) problems.push(`${expected.name} is missing`);
    else if (actual.bytes !== expected.bytes) {
      problems.push(`${expected.name} has ${actual.bytes} bytes, the manifest says ${expected.bytes}`);
    } else if (actual.sha256 !== expected.sha256) problems.push(`${expected.name} does not match its sha256`);
  }
  return problems;
}
