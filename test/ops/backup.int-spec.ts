import { createTestDatabase, startApp, type AppProcess, type TestDatabase, waitFor } from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { type LabellerFixture, startLabellerFixture, waitFinished } from '../labeller/labeller-fixture';

const ROOT = path.resolve(__dirname, '../..');
const KEY = 'test-pseudonym-key-0123456789abcdef';

/** `./echoloop backup|restore ...` as an operator runs it; never rejects, the exit code says how it went. */
function echoloop(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      path.join(ROOT, 'echoloop'),
      args,
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Every table's row count and the md5 of its rows in a fixed order, and every sequence's position. */
async function contents(url: string): Promise<Record<string, string>> {
  const tables = await query<{ name: string }>(
    url,
    `SELECT quote_ident(table_name) AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await query<{ n: number; digest: string }>(
      url,
      `SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest
         FROM public.${name} t`,
    );
    out[name] = `${row?.n} rows ${row?.digest}`;
  }
  for (const seq of await query<{ name: string; last: string | null }>(
    url,
    `SELECT sequencename AS name, last_value::text AS last FROM pg_sequences WHERE schemaname = 'public'`,
  )) {
    out[`sequence ${seq.name}`] = String(seq.last);
  }
  return out;
}

/** Every file under a folder by its relative path, with its sha256. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  }
  return out;
}

describe('./echoloop backup and restore: the database and the artifact store', () => {
  let f: LabellerFixture;
  let work: string;
  let source: { url: string; exports: string; rl: string };
  let gateway: AppProcess | undefined;
  let restoredGateway: AppProcess | undefined;
  const databases: TestDatabase[] = [];
  const jwtSecret = randomBytes(32).toString('hex');
  let userToken = '';
  let analystToken = '';
  let conversationId = '';
  let exportId = '';
  let backupDir = '';

  const gatewayEnv = (url: string, exports: string) => ({
    DATABASE_URL: url,
    LLM_BASE_URL: f.judge.url,
    EXPORT_DIR: exports,
    EXPORT_PSEUDONYM_KEY: KEY,
    JWT_SECRET: jwtSecret,
  });
  const call = async (app: AppProcess, token: string, method: string, route: string, body?: unknown) => {
    const res = await fetch(`${app.url}${route}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, text: await res.text() };
  };
  /** What a user and an analyst see of the stack: their conversation, its labels, the checkpoints, the export's file. */
  const served = async (app: AppProcess) => ({
    conversations: await call(app, userToken, 'GET', '/v1/conversations'),
    messages: await call(app, userToken, 'GET', `/v1/conversations/${conversationId}/messages`),
    turns: await call(app, analystToken, 'GET', '/v1/turns'),
    checkpoints: await call(app, analystToken, 'GET', '/v1/checkpoints'),
    download: await call(app, analystToken, 'GET', `/v1/exports/${exportId}/download`),
  });
  const emptyDatabase = async () => {
    const db = await createTestDatabase('restore');
    databases.push(db);
    return db;
  };

  beforeAll(async () => {
    f = await startLabellerFixture();
    work = await mkdtemp(path.join(tmpdir(), 'echoloop-backup-'));
    const url = (f.db.options as { url: string }).url;
    source = { url, exports: path.join(work, 'exports'), rl: path.join(work, 'rl') };
    gateway = await startApp('chat-gateway', gatewayEnv(url, source.exports));
    const signUp = async (name: string, roles: string[]) => {
      const email = `${name}-${Date.now()}@example.com`;
      const post = (route: string, body: unknown) =>
        fetch(`${gateway!.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((res) => res.json() as Promise<Record<string, any>>);
      const { userId } = await post('/v1/auth/register', {
        email,
        password: 'a good passphrase',
        displayName: name,
      });
      await f.db.query(`UPDATE users SET roles = $1, training_consent = true WHERE id = $2`, [roles, userId]);
      const { accessToken } = await post('/v1/auth/login', { email, password: 'a good passphrase' });
      return { userId: userId as string, token: accessToken as string };
    };

    // A used stack: a user's labelled conversation, an analyst's export, a trained checkpoint's adapter.
    const user = await signUp('sam', ['user']);
    userToken = user.token;
    analystToken = (await signUp('ana', ['analyst'])).token;
    const c = await f.conversation(user.userId);
    conversationId = c.id;
    const first = await c.turn('I failed my driving test again today.', 'Oh no, that is so frustrating.');
    const second = await c.turn('thanks, it helps to say it', 'Any time. Want to try again soon?');
    await c.publish(first, second);
    await waitFinished(f, first.turnId);
    await waitFinished(f, second.turnId);

    const started = await call(gateway, analystToken, 'POST', '/v1/exports', { kind: 'turns' });
    exportId = (JSON.parse(started.text) as { id: string }).id;
    await waitFor(
      async () =>
        (JSON.parse((await call(gateway!, analystToken, 'GET', `/v1/exports/${exportId}`)).text) as any)
          .status === 'succeeded',
      { timeoutMs: 30_000, what: 'the export to succeed' },
    );
    const adapter = path.join(source.rl, 'jobs', 'job-1', 'adapter');
    await mkdir(adapter, { recursive: true });
    await writeFile(path.join(adapter, 'adapter_config.json'), '{"r": 8, "lora_alpha": 16}\n');
    await writeFile(path.join(adapter, 'adapter_model.safetensors'), randomBytes(64 * 1024));
    await f.db.query(
      `INSERT INTO checkpoints (id, model_name, endpoints, adapter_path, status) VALUES ($1, $1, '[]', $2, 'retired')`,
      ['ckpt-backup-1', adapter],
    );
    // Nothing writes while the backup is compared with its source row for row.
    await gateway.stop();
    await f.labeller.stop();
  }, 180_000);

  afterAll(async () => {
    await restoredGateway?.stop();
    await gateway?.stop();
    await f?.close();
    for (const db of databases) await db.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('restores a used stack into an empty one row for row; the restored stack serves the same conversations, labels, exports and checkpoints', async () => {
    const before = await contents(source.url);
    expect(before['reward_labels']).not.toMatch(/^0 rows/);
    expect(before['dataset_exports']).toMatch(/^1 rows/);
    expect(before['checkpoints']).not.toMatch(/^0 rows/);

    const backup = await echoloop(['backup', '--out', path.join(work, 'backups')], {
      DATABASE_URL: source.url,
      EXPORT_DIR: source.exports,
      RL_WORK_DIR: source.rl,
    });
    expect(backup).toMatchObject({ code: 0 });
    backupDir = backup.stdout.trim();
    // Progress per table on stderr; the password never.
    expect(backup.stderr).toContain('table public.reward_labels');
    expect(backup.stderr).not.toContain(`:${new URL(source.url).password}@`);
    const manifest = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.files.map((file: { name: string }) => file.name).sort()).toEqual([
      'artifacts/exports.tar',
      'artifacts/rl.tar',
      'database.dump',
    ]);

    const target = await emptyDatabase();
    const restoredExports = path.join(work, 'restored', 'exports');
    const restoredRl = path.join(work, 'restored', 'rl');
    const restore = await echoloop(['restore', backupDir], {
      DATABASE_URL: target.url,
      EXPORT_DIR: restoredExports,
      RL_WORK_DIR: restoredRl,
    });
    expect(restore).toMatchObject({ code: 0 });
    // The checkpoint names its adapter by the path it was trained at: the operator is told where it must be.
    expect(restore.stdout).toContain(`set RL_WORK_DIR=${source.rl}`);

    expect(await contents(target.url)).toEqual(before);
    expect(await tree(restoredExports)).toEqual(await tree(source.exports));
    expect(await tree(restoredRl)).toEqual(await tree(source.rl));

    gateway = await startApp('chat-gateway', gatewayEnv(source.url, source.exports));
    const original = await served(gateway);
    await gateway.stop();
    restoredGateway = await startApp('chat-gateway', gatewayEnv(target.url, restoredExports));
    const restored = await served(restoredGateway);
    expect(original.messages.status).toBe(200);
    expect(original.turns.status).toBe(200);
    expect(original.download.status).toBe(200);
    expect(original.messages.text).toContain('driving test');
    expect(original.checkpoints.text).toContain('ckpt-backup-1');
    expect(restored).toEqual(original);
  }, 180_000);

  it('refuses, changing nothing, a database that is not empty and a backup that was changed', async () => {
    expect(backupDir).not.toBe('');
    const [occupied] = databases;
    const restoreInto = (dir: string, url: string) =>
      echoloop(['restore', dir], {
        DATABASE_URL: url,
        EXPORT_DIR: path.join(work, 'elsewhere', 'exports'),
        RL_WORK_DIR: path.join(work, 'elsewhere', 'rl'),
      });

    const before = await contents(occupied!.url);
    const again = await restoreInto(backupDir, occupied!.url);
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/restore refused, nothing was changed: .*is not empty/);
    expect(await contents(occupied!.url)).toEqual(before);

    const damaged = path.join(work, 'damaged');
    await cp(backupDir, damaged, { recursive: true });
    const dump = await readFile(path.join(damaged, 'database.dump'));
    const middle = Math.floor(dump.length / 2);
    dump.writeUInt8(dump.readUInt8(middle) ^ 0xff, middle);
    await writeFile(path.join(damaged, 'database.dump'), dump);
    const empty = await emptyDatabase();
    const refused = await restoreInto(damaged, empty.url);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('database.dump does not match its sha256');
    expect(await contents(empty.url)).toEqual({});
  }, 120_000);
});
