import { parseArgs } from 'node:util';

export const USAGE =
  'usage: ./echoloop backup [--out DIR]       the database (pg_dump) and the artifact store, with a manifest\n' +
  '       ./echoloop restore BACKUP [--force]  checks the backup, then restores the database and the artifacts\n' +
  '  --out DIR  where the backup folder is made (default .infra/backups)\n' +
  '  --force    restore over a database or artifact folder that is not empty (replaces what the backup holds)\n' +
  'Reads DATABASE_URL, EXPORT_DIR and RL_WORK_DIR as the apps do.\n';

/** Under the repository root (ignored by git, as all of .infra). */
export const DEFAULT_BACKUP_ROOT = '.infra/backups';

export type OpsCommand =
  | { kind: 'backup'; out: string | null }
  | { kind: 'restore'; backup: string; force: boolean };

/** `backup ...` or `restore ...` as typed after `./echoloop`; a message naming the problem otherwise. */
export function parseOpsCommand(
  argv: readonly string[],
): { ok: true; command: OpsCommand } | { ok: false; message: string } {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const [verb, ...rest] = parsed.positionals;
  const { out, force } = parsed.values;
  if (verb === 'backup') {
    if (rest.length > 0) return { ok: false, message: `unexpected argument: ${rest.join(' ')}` };
    if (force) return { ok: false, message: '--force is an option of restore' };
    if (out === '') return { ok: false, message: '--out: must name a folder' };
    return { ok: true, command: { kind: 'backup', out: out ?? null } };
  }
  if (verb === 'restore') {
    if (out !== undefined) return { ok: false, message: '--out is an option of backup' };
    if (rest.length !== 1 || !rest[0]) return { ok: false, message: 'restore needs one backup folder' };
    return { ok: true, command: { kind: 'restore', backup: rest[0], force: force ?? false } };
  }
  return { ok: false, message: verb ? `unknown command: ${verb}` : 'no command' };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { out: { type: 'string' }, force: { type: 'boolean' } },
  });
}
