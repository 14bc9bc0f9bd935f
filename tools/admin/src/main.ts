// `./echoloop admin create --email <e> [--name <n>] [--password-stdin]`: the first admin, or a role grant, without
// SQL. Exit codes: 0 done, 1 failed (database), 2 bad arguments or password.
import { LOCAL_DATABASE_URL } from '@echoloop/config';
import { dataSourceOptions } from '@echoloop/persistence';
import { createOrPromoteAdmin, hashPassword } from '@echoloop/platform';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { adminPasswordSchema, parseAdminCommand, USAGE } from './admin-command';

class UsageError extends Error {}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // `echo pass | ...` and here-strings add one line break that is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

async function newPassword(fromStdin: boolean): Promise<{ password: string; generated: boolean }> {
  if (!fromStdin) return { password: randomBytes(18).toString('base64url'), generated: true };
  const result = adminPasswordSchema.safeParse(await readStdin());
  if (!result.success) throw new UsageError(`password: ${result.error.issues[0]?.message ?? 'invalid'}`);
  return { password: result.data, generated: false };
}

async function main(argv: readonly string[]): Promise<void> {
  const parsed = parseAdminCommand(argv);
  if (!parsed.ok) throw new UsageError(`${parsed.message}\n${USAGE}`);
  const { email, name, passwordStdin } = parsed.command;
  const { password, generated } = await newPassword(passwordStdin);
  const passwordHash = await hashPassword(password);

  const db = await new DataSource(
    dataSourceOptions({
      url: process.env['DATABASE_URL'] ?? LOCAL_DATABASE_URL,
      poolSize: 1,
      applicationName: 'admin-cli',
    }),
  ).initialize();
  try {
    const { userId, outcome } = await db.transaction((tx) =>
      createOrPromoteAdmin(tx, { email, displayName: name, passwordHash }, 'cli'),
    );
    if (outcome === 'created') {
      process.stdout.write(`created admin ${email} (id ${userId})\n`);
      if (generated) process.stdout.write(`password (shown once): ${password}\n`);
    } else if (outcome === 'promoted') {
      process.stdout.write(`${email} (id ${userId}) is now an admin; its password is unchanged\n`);
    } else {
      process.stdout.write(`${email} (id ${userId}) is already an admin; nothing changed\n`);
    }
  } finally {
    await db.destroy();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`admin: ${error.message}\n`);
    process.exit(2);
  }
  // A database error's message can quote the statement's parameters (the password hash): the code only.
  const code = (error as { code?: unknown; driverError?: { code?: unknown } }).driverError?.code;
  process.stderr.write(
    `admin failed: ${typeof code === 'string' ? `database error ${code}` : describe(error)}\n`,
  );
  process.exit(1);
});

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
