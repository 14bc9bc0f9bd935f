import { userText } from '@echoloop/platform';
import { parseArgs } from 'node:util';
import { z } from 'zod';

export const USAGE =
  'usage: ./echoloop admin create --email <email> [--name <display name>] [--password-stdin]\n' +
  '  Creates an admin account, or makes an existing account an admin (its password is kept).\n' +
  '  --password-stdin  read the new account password from stdin (12-128 characters); otherwise one is\n' +
  '                    generated and printed once.\n';

const createAdminSchema = z
  .object({
    email: z
      .email({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be an email address') })
      .max(254)
      .transform((value) => value.toLowerCase()),
    name: userText().trim().min(1).max(80).default('Admin'),
    passwordStdin: z.boolean().default(false),
  })
  .strict();

export type CreateAdminCommand = z.infer<typeof createAdminSchema>;

export const adminPasswordSchema = z
  .string()
  .min(12, 'must be at least 12 characters')
  .max(128, 'must be at most 128 characters');

/** `create --email ...` as typed after `./echoloop admin`; a message naming every problem otherwise. */
export function parseAdminCommand(
  argv: readonly string[],
): { ok: true; command: CreateAdminCommand } | { ok: false; message: string } {
  let parsed: ReturnType<typeof parseCreate>;
  try {
    parsed = parseCreate(argv);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const [verb, ...rest] = parsed.positionals;
  if (verb !== 'create' || rest.length > 0) {
    return { ok: false, message: verb ? `unknown command: ${parsed.positionals.join(' ')}` : 'no command' };
  }
  const result = createAdminSchema.safeParse({
    email: parsed.values.email,
    name: parsed.values.name,
    passwordStdin: parsed.values['password-stdin'],
  });
  if (result.success) return { ok: true, command: result.data };
  const problems = result.error.issues.map((issue) => `--${flag(issue.path)}: ${issue.message}`);
  return { ok: false, message: problems.join('\n') };
}

function parseCreate(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
  });
}

function flag(path: readonly PropertyKey[]): string {
  const key = String(path[0] ?? 'arguments');
  return key === 'passwordStdin' ? 'password-stdin' : key;
}
