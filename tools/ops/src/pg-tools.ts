import { existsSync } from 'node:fs';
import path from 'node:path';
import { type DatabaseTarget, scrub } from './database-target';
import { runTool } from './run-tool';

/** PG_BIN, else the stack's PostgreSQL 15 (tools/stack/postgres.sh), else whatever PATH finds. */
export function pgBin(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env['PG_BIN']) return env['PG_BIN'];
  return existsSync('/usr/lib/postgresql/15/bin/pg_dump') ? '/usr/lib/postgresql/15/bin' : null;
}

/** `pg_dump: dumping contents of table "public.users"` and pg_restore's `processing data for table ...`. */
const TABLE_LINE = /^pg_(?:dump|restore): (?:dumping contents of|processing data for) table "([^"]+)"/;
/** The rest of --verbose's chatter; errors, warnings and their details are kept. */
const CHATTER = /^pg_(?:dump|restore): (?!error|warning|detail|hint)/i;

/** pg_dump and pg_restore, with the password in the environment only and progress reported per table. */
export class PgTools {
  constructor(private readonly bin: string | null = pgBin()) {}

  private command(tool: 'pg_dump' | 'pg_restore'): string {
    return this.bin ? path.join(this.bin, tool) : tool;
  }

  async version(tool: 'pg_dump' | 'pg_restore'): Promise<string> {
    const run = await runTool(this.command(tool), ['--version']);
    if (run.code !== 0) throw new Error(`${tool} --version failed: ${run.kept.join(' ')}`);
    return run.stdout.trim();
  }

  /** The whole database in pg_dump's custom format (-Fc), one snapshot. */
  dump(target: DatabaseTarget, file: string, onTable: (table: string) => void): Promise<void> {
    return this.run('pg_dump', target, onTable, [
      '--format=custom',
      '--verbose',
      '--no-password',
      `--file=${file}`,
      `--dbname=${target.urlWithoutPassword}`,
    ]);
  }

  /**
   * Into the target in one transaction (a failure leaves it as it was); `clean` drops what the dump holds first.
   * Objects belong to the restoring role (--no-owner), as the apps' own role made them.
   */
  restore(target: DatabaseTarget, file: string, clean: boolean, onTable: (table: string) => void) {
    return this.run('pg_restore', target, onTable, [
      '--verbose',
      '--no-password',
      '--single-transaction',
      '--exit-on-error',
      '--no-owner',
      ...(clean ? ['--clean', '--if-exists'] : []),
      `--dbname=${target.urlWithoutPassword}`,
      file,
    ]);
  }

  private async run(
    tool: 'pg_dump' | 'pg_restore',
    target: DatabaseTarget,
    onTable: (table: string) => void,
    args: string[],
  ): Promise<void> {
    const run = await runTool(this.command(tool), args, {
      env: {
        ...(target.password !== null && { PGPASSWORD: target.password }),
        PGAPPNAME: `echoloop-${tool}`,
      },
      onStderrLine: (line) => {
        const table = TABLE_LINE.exec(line)?.[1];
        if (table) onTable(table);
        return !table && !CHATTER.test(line);
      },
    });
    if (run.code === 0) return;
    const said = run.kept.map((line) => scrub(line, target.password)).join('\n  ');
    throw new Error(`${tool} failed (exit ${run.code})${said ? `:\n  ${said}` : ''}`);
  }
}
