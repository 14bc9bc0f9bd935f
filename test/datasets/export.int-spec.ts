import { chatFeedbackV2, createEvent } from '@echoloop/contracts';
import {
  type DatasetKind,
  exportDataset,
  LabelledTurnsSource,
  type Manifest,
  manifestSchema,
  preferenceRecord,
  pseudonymize,
  turnRecord,
} from '@echoloop/datasets';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { isDataException } from '@echoloop/persistence';
import { hashPassword } from '@echoloop/platform';
import { type AppProcess, startApp, waitFor } from '@echoloop/testing';
import {
  type Conversation,
  type LabellerFixture,
  startLabellerFixture,
  type TurnPayload,
  waitFinished,
} from '../labeller/labeller-fixture';

const run = promisify(execFile);

/** `npm run dataset:export` with these flags, its files kept in `exportDir` (EXPORT_DIR, the gateway's store). */
const cliExport = (flags: string[], exportDir: string, databaseUrl: string) =>
  run(process.execPath, ['-r', '@swc-node/register', 'tools/datasets/src/main.ts', ...flags], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      EXPORT_DIR: exportDir,
      EXPORT_PSEUDONYM_KEY: KEY,
    },
  });
const ROOT = path.resolve(__dirname, '../..');
const KEY = 'test-pseudonym-key-0123456789abcdef';

const readJsonl = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);

/** A port nothing listens on right now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** The Python environment with pyarrow and Hugging Face datasets (built once per machine by the project's script). */
let python: string | undefined;
async function readersPython(): Promise<string> {
  python ??= (
    await run('bash', [path.join(ROOT, 'tools/python/venv.sh'), 'readers'], { timeout: 600_000 })
  ).stdout.trim();
  return python;
}

/** pyarrow: an independent reader of our Parquet files, rows as JSON, and the schema as text. */
async function readParquetWithPyarrow(
  file: string,
): Promise<{ rows: Record<string, any>[]; schema: string }> {
  const { stdout } = await run(await readersPython(), [
    '-c',
    'import json, sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); print(json.dumps({"rows": t.to_pylist(), "schema": str(t.schema)}))',
    file,
  ]);
  return JSON.parse(stdout) as { rows: Record<string, any>[]; schema: string };
}

/** Python's csv module: an independent reader of what we wrote. */
async function readCsvWithPython(file: string): Promise<Record<string, string>[]> {
  const { stdout } = await run('python3', [
    '-c',
    'import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))',
    file,
  ]);
  return JSON.parse(stdout) as Record<string, string>[];
}

describe('datasets from labelled turns: streamed, pseudonymous, redacted, consented', () => {
  let f: LabellerFixture;
  let out: string;
  const dbUrl = () => (f.db.options as { url: string }).url;
  let consenting: Conversation;
  let refusing: Conversation;
  const turns: TurnPayload[] = [];
  let kept: TurnPayload;
  let discarded: TurnPayload;

  const consent = (c: Conversation, value: boolean | null) =>
    f.db.query(`UPDATE users SET training_consent = $2 WHERE id = $1`, [c.userId, value]);
  const exportOf = (kind: DatasetKind, format: 'jsonl' | 'csv' | 'parquet', consentDefault = false) =>
    exportDataset({
      db: f.db,
      kind,
      format,
      filters: {},
      outDir: out,
      privacy: { pseudonymKey: KEY },
      consentDefault,
    });

  // The Python readers are built once per machine (a first build downloads pyarrow and datasets).
  beforeAll(() => readersPython(), 600_000);

  beforeAll(async () => {
    f = await startLabellerFixture();
    out = await mkdtemp(path.join(tmpdir(), 'echoloop-export-'));
    consenting = await f.conversation();
    refusing = await f.conversation();
    await consent(consenting, true);
    await consent(refusing, false);

    const first = await consenting.turn(
      'I failed my driving test, mail me at sam.jones@example.org',
      'Oh no, that is so frustrating.',
    );
    const again = await consenting.turn('', 'That sounds really hard. What happened?', {
      sameUserMessageAs: first,
    });
    const next = await consenting.turn('thanks, the parking went wrong', 'Parking is the worst part.');
    const hidden = await refusing.turn('my secret diary entry', 'I am listening.');
    turns.push(first, again, next, hidden);
    await consenting.publish(first, again);
    // The user swipes back to the first reply and keeps it.
    await f.publisher.publish(
      chatFeedbackV2,
      createEvent(
        chatFeedbackV2,
        {
          kind: 'swipe',
          conversationId: consenting.id,
          userId: consenting.userId,
          parentId: first.userMessage.id,
          selectedTurnId: first.turnId,
          rejectedTurnIds: [again.turnId],
        },
        'test',
      ),
      consenting.id,
    );
    await consenting.publish(next);
    await refusing.publish(hidden);
    for (const t of turns) await waitFinished(f, t.turnId);
    // The swipe travels on its own topic: wait until it has been applied, so every export sees the same signals.
    const keptOf = async (turnId: string) =>
      (
        (await f.db.query(`SELECT signals->'kept' AS kept FROM reward_turns WHERE turn_id = $1`, [
          turnId,
        ])) as [{ kept: boolean | null }]
      )[0].kept;
    await waitFor(
      async () => (await keptOf(first.turnId)) === true && (await keptOf(again.turnId)) === false,
      {
        what: 'the swipe applied',
        timeoutMs: 30_000,
      },
    );
    [kept, discarded] = [first, again];
  }, 180_000);

  afterAll(async () => {
    await f?.close();
    if (out) await rm(out, { recursive: true, force: true });
  });

  it('turns: every labelled turn of consenting users, field by field, with its manifest', async () => {
    const { dir, manifest } = await exportOf('turns', 'jsonl');
    const rows = await readJsonl(path.join(dir, 'turns.jsonl'));
    expect(rows.map((r) => r['turnId']).sort()).toEqual(
      [kept.turnId, discarded.turnId, turns[2]!.turnId].sort(),
    );

    for (const row of rows) {
      expect(turnRecord.safeParse(row).error).toBeUndefined();
      const labels = await f.labels(row['turnId']);
      for (const component of ['empathy', 'humanlike', 'live_emotion', 'implicit']) {
        const label = labels.find((l) => l.component === component);
        expect([component, row['rewards'][component]]).toEqual([
          component,
          label?.status === 'labelled' ? label.value : null,
        ]);
      }
      expect(row).toMatchObject({
        schemaVersion: 1,
        conversationId: consenting.id,
        user: pseudonymize(KEY, consenting.userId),
        checkpointId: 'base',
        labellerVersion: 'labeller-v1',
      });
      expect(JSON.stringify(row)).not.toContain(consenting.userId);
      expect(row['composite']).toMatchObject({ value: expect.any(Number), version: 'composite-v1' });
    }
    const first = rows.find((r) => r['turnId'] === kept.turnId)!;
    expect(first['context'].at(-1)).toEqual({
      role: 'user',
      content: 'I failed my driving test, mail me at [EMAIL]',
    });
    expect(first['feedback']).toMatchObject({ kept: true });
    expect(rows.find((r) => r['turnId'] === discarded.turnId)!['feedback']).toMatchObject({ kept: false });

    const file = await readFile(path.join(dir, 'turns.jsonl'));
    expect(manifest).toMatchObject<Partial<Manifest>>({
      kind: 'turns',
      rows: 3,
      labelVersions: ['labeller-v1'],
      files: [
        {
          name: 'turns.jsonl',
          rows: 3,
          bytes: file.length,
          sha256: createHash('sha256').update(file).digest('hex'),
        },
      ],
    });
    expect(JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'))).toEqual(manifest);
  });

  it('every kind as CSV, read back by Python, holds the JSONL values field by field', async () => {
    for (const kind of ['turns', 'preferences', 'sft', 'verl'] as const) {
      const jsonl = await readJsonl(path.join((await exportOf(kind, 'jsonl')).dir, `${kind}.jsonl`));
      const csv = await readCsvWithPython(path.join((await exportOf(kind, 'csv')).dir, `${kind}.csv`));
      expect([kind, csv.length]).toEqual([kind, jsonl.length]);
      for (const [i, row] of csv.entries()) {
        for (const [key, value] of Object.entries(jsonl[i]!)) {
          // Cells are text: nested values are JSON, numbers and booleans their literal, null an empty cell.
          const cell = row[key] ?? '';
          const actual =
            value === null
              ? cell === ''
                ? null
                : cell
              : typeof value === 'string'
                ? cell
                : JSON.parse(cell);
          expect([kind, key, actual]).toEqual([kind, key, value]);
        }
      }
    }
  });

  it('preferences: the kept swipe over the discarded one, in TRL conversational format', async () => {
    const { dir, manifest } = await exportOf('preferences', 'jsonl');
    const rows = await readJsonl(path.join(dir, 'preferences.jsonl'));
    expect(rows).toHaveLength(1);
    expect(preferenceRecord.safeParse(rows[0]).error).toBeUndefined();
    expect(manifestSchema.safeParse(manifest).error).toBeUndefined();
    expect(rows[0]).toMatchObject({
      source: 'swipe',
      chosenTurnId: kept.turnId,
      rejectedTurnId: discarded.turnId,
      prompt: [{ role: 'user', content: 'I failed my driving test, mail me at [EMAIL]' }],
      chosen: [{ role: 'assistant', content: 'Oh no, that is so frustrating.' }],
      rejected: [{ role: 'assistant', content: 'That sounds really hard. What happened?' }],
      user: pseudonymize(KEY, consenting.userId),
    });
    expect(rows[0]!['chosenRewards']).toHaveProperty('composite');
    expect(manifest.rows).toBe(1);
  });

  it('every kind as Parquet, read back by pyarrow, holds the JSONL values field by field', async () => {
    for (const kind of ['turns', 'preferences', 'sft', 'verl'] as const) {
      const jsonl = await readJsonl(path.join((await exportOf(kind, 'jsonl')).dir, `${kind}.jsonl`));
      const { rows } = await readParquetWithPyarrow(
        path.join((await exportOf(kind, 'parquet')).dir, `${kind}.parquet`),
      );
      expect([kind, rows.length]).toEqual([kind, jsonl.length]);
      expect(jsonl.length).toBeGreaterThan(0);
      for (const [i, row] of rows.entries()) {
        const expected = jsonl[i]!;
        for (const [key, value] of Object.entries(expected)) {
          // Nested objects other than chats are JSON text in Parquet.
          const actual =
            typeof value === 'object' && value !== null && !Array.isArray(value) && kind !== 'verl'
              ? JSON.parse(row[key])
              : row[key];
          expect([kind, key, actual]).toEqual([kind, key, value]);
        }
      }
    }
  });

  it('verl: the columns VeRL reads, one prompt per user message, the kept reply as the reference', async () => {
    const { rows, schema } = await readParquetWithPyarrow(
      path.join((await exportOf('verl', 'parquet')).dir, 'verl.parquet'),
    );
    expect(schema).toContain('prompt: list<element: struct<role: string not null, content: string not null>');
    expect(schema).toContain('reward_model: struct<style: string, ground_truth: string>');
    expect(rows).toHaveLength(2); // the regenerated message once, and the next one
    const first = rows.find(
      (r) => r['extra_info'].turn_id === kept.turnId || r['extra_info'].turn_id === discarded.turnId,
    )!;
    expect(first).toMatchObject({
      data_source: 'echoloop_live',
      ability: 'empathy',
      prompt: [{ role: 'user', content: 'I failed my driving test, mail me at [EMAIL]' }],
      reward_model: { style: 'model', ground_truth: 'Oh no, that is so frustrating.' },
      extra_info: {
        split: expect.stringMatching(/^(train|test)$/),
        interaction_kwargs: { name: 'sentient_user' },
      },
    });
  });

  it('preferences load with Hugging Face datasets as TRL conversational pairs', async () => {
    const { dir } = await exportOf('preferences', 'jsonl');
    const { stdout } = await run(await readersPython(), [
      '-c',
      [
        'import json, sys',
        'from datasets import load_dataset',
        'd = load_dataset("json", data_files=sys.argv[1], split="train")',
        'print(json.dumps({"columns": d.column_names, "first": d[0]}))',
      ].join('\n'),
      path.join(dir, 'preferences.jsonl'),
    ]);
    const { columns, first } = JSON.parse(stdout) as { columns: string[]; first: Record<string, any> };
    expect(columns).toEqual(expect.arrayContaining(['prompt', 'chosen', 'rejected']));
    expect(first['prompt'].at(-1)).toEqual({
      role: 'user',
      content: 'I failed my driving test, mail me at [EMAIL]',
    });
    expect(first['chosen']).toEqual([{ role: 'assistant', content: 'Oh no, that is so frustrating.' }]);
    expect(first['rejected']).toEqual([
      { role: 'assistant', content: 'That sounds really hard. What happened?' },
    ]);
  });

  it('a user without consent is absent from every output; the configured default counts for those who never chose', async () => {
    for (const kind of ['turns', 'preferences'] as const) {
      const { dir } = await exportOf(kind, 'jsonl', true);
      const text = await readFile(path.join(dir, `${kind}.jsonl`), 'utf8');
      expect(text).not.toContain('secret diary');
      expect(text).not.toContain(pseudonymize(KEY, refusing.userId));
    }
    await consent(refusing, null);
    const withDefault = await readFile(
      path.join((await exportOf('turns', 'jsonl', true)).dir, 'turns.jsonl'),
      'utf8',
    );
    expect(withDefault).toContain('secret diary');
    const withoutDefault = await readFile(
      path.join((await exportOf('turns', 'jsonl')).dir, 'turns.jsonl'),
      'utf8',
    );
    expect(withoutDefault).not.toContain('secret diary');
    await consent(refusing, false);
  });

  it("a simulated user's turns are in no export of people, and only in the simulated population's", async () => {
    const simulated = (value: boolean) =>
      f.db.query(`UPDATE users SET simulated = $2 WHERE id = $1`, [consenting.userId, value]);
    const exported = async (population?: 'people' | 'simulated') => {
      const { dir, manifest } = await exportDataset({
        db: f.db,
        kind: 'turns',
        format: 'jsonl',
        filters: population ? { population } : {},
        outDir: out,
        privacy: { pseudonymKey: KEY },
        consentDefault: false,
      });
      return { text: await readFile(path.join(dir, 'turns.jsonl'), 'utf8'), manifest };
    };
    await simulated(true);
    try {
      for (const people of [await exported(), await exported('people')]) {
        expect(people.text).not.toContain(pseudonymize(KEY, consenting.userId));
        expect(people.manifest.rows).toBe(0);
      }
      const sims = await exported('simulated');
      expect(sims.text).toContain(pseudonymize(KEY, consenting.userId));
      expect(sims.manifest.rows).toBe(3);
      // The manifest says which population the dataset holds.
      expect(sims.manifest.filters).toMatchObject({ population: 'simulated' });
    } finally {
      await simulated(false);
    }
    expect((await exported()).text).toContain(pseudonymize(KEY, consenting.userId));
  });

  it('plans an export’s query on PostgreSQL: a filter value it cannot compare is a data exception, which POST refuses', async () => {
    const source = new LabelledTurnsSource(f.db);
    // Past the API's date-time type on purpose: the plan is the defence behind it.
    const refused = await source
      .plan({ filters: { from: '0000-01-01T00:00:00Z' }, consentDefault: false })
      .catch((error: unknown) => error);
    expect(isDataException(refused)).toBe(true);
    await expect(
      source.plan({ filters: { from: '2026-01-01T00:00:00.000Z' }, consentDefault: false }),
    ).resolves.toBeUndefined();
  });

  it('the CLI writes the same export with progress, records it and prints its manifest', async () => {
    const { stdout, stderr } = await cliExport(['--kind', 'turns', '--format', 'csv'], out, dbUrl());
    const manifest = JSON.parse(stdout) as Manifest & { dir: string; status: string };
    expect(manifest).toMatchObject({ kind: 'turns', format: 'csv', rows: 3, status: 'succeeded' });
    expect(manifest.dir).toBe(path.join(out, manifest.id));
    expect(stderr).toMatch(/export turns: 3\/3 turns \(100%\)/);
    const rows = await readCsvWithPython(path.join(manifest.dir, 'turns.csv'));
    expect(rows.map((r) => r['user'])).toEqual(Array(3).fill(pseudonymize(KEY, consenting.userId)));
    // Recorded as the API's exports are, with the users it holds (what erasure looks for).
    const [row] = (await f.db.query(
      `SELECT origin, status, rows, requested_by AS "requestedBy",
              (SELECT array_agg(user_id) FROM dataset_export_users WHERE export_id = e.id) AS users
         FROM dataset_exports e WHERE id = $1`,
      [manifest.id],
    )) as Record<string, unknown>[];
    expect(row).toEqual({
      origin: 'cli',
      status: 'succeeded',
      rows: 3,
      requestedBy: null,
      users: [consenting.userId],
    });

    const bad = await run(
      process.execPath,
      ['-r', '@swc-node/register', 'tools/datasets/src/main.ts', '--kind', 'x'],
      {
        cwd: ROOT,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--kind') });
  });

  describe('exports in an S3-compatible bucket', () => {
    let moto: ChildProcess;
    let gateway: AppProcess;
    let s3: S3Client;
    let staging: string;
    const bucket = 'echoloop-exports';
    const objects = async () =>
      ((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key);

    beforeAll(async () => {
      const s3Python = (
        await run('bash', [path.join(ROOT, 'tools/python/venv.sh'), 's3'], { timeout: 600_000 })
      ).stdout.trim();
      const port = await freePort();
      moto = spawn(
        path.join(path.dirname(s3Python), 'moto_server'),
        ['-H', '127.0.0.1', '-p', String(port)],
        {
          stdio: 'ignore',
        },
      );
      const endpoint = `http://127.0.0.1:${port}`;
      await waitFor(
        () =>
          fetch(endpoint).then(
            (res) => res.ok,
            () => false,
          ),
        { what: 'the S3 server', timeoutMs: 30_000 },
      );
      const credentials = { accessKeyId: 'test-key', secretAccessKey: 'test-secret' };
      s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
      await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      staging = path.join(out, 's3-staging');
      gateway = await startApp('chat-gateway', {
        DATABASE_URL: (f.db.options as { url: string }).url,
        LLM_BASE_URL: f.judge.url,
        EXPORT_PSEUDONYM_KEY: KEY,
        EXPORT_DIR: staging,
        EXPORT_S3_BUCKET: bucket,
        EXPORT_S3_ENDPOINT: endpoint,
        EXPORT_S3_ACCESS_KEY_ID: credentials.accessKeyId,
        EXPORT_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        // Erased exports' objects are removed by the sweep: a short one keeps the wait short.
        EXPORT_SWEEP_MS: '500',
      });
    }, 600_000);
    afterAll(async () => {
      await gateway?.stop();
      moto?.kill();
    });

    it('uploads the files, serves the download from the bucket, and removes them when the export is erased', async () => {
      const email = `s3-analyst-${Date.now()}@example.com`;
      const post = (route: string, body: unknown, token?: string) =>
        fetch(`${gateway.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
          body: JSON.stringify(body),
        }).then((res) => res.json() as Promise<Record<string, any>>);
      const { userId } = await post('/v1/auth/register', {
        email,
        password: 'a good passphrase',
        displayName: 'S3',
      });
      await f.db.query(`UPDATE users SET roles = '{analyst}' WHERE id = $1`, [userId]);
      const { accessToken } = await post('/v1/auth/login', { email, password: 'a good passphrase' });
      const get = (route: string) =>
        fetch(`${gateway.url}${route}`, { headers: { authorization: `Bearer ${accessToken}` } });

      const { id } = await post('/v1/exports', { kind: 'verl', format: 'parquet' }, accessToken);
      const done = await waitFor(
        async () => {
          const row = (await (await get(`/v1/exports/${id}`)).json()) as Record<string, any>;
          return ['succeeded', 'failed'].includes(row['status']) && row;
        },
        { what: 'the export to finish', timeoutMs: 45_000 },
      );
      expect(done).toMatchObject({ status: 'succeeded' });
      expect((await objects()).sort()).toEqual([`exports/${id}/manifest.json`, `exports/${id}/verl.parquet`]);
      expect(await readdir(staging).catch(() => [])).toEqual([]);
      const download = await get(`/v1/exports/${id}/download`);
      expect(download.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      const bytes = Buffer.from(await download.arrayBuffer());
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(done.manifest.files[0].sha256);

      await f.db.query(`UPDATE dataset_exports SET status = 'erased' WHERE id = $1`, [id]);
      await waitFor(async () => (await objects()).length === 0, {
        what: 'the objects removed from the bucket',
        timeoutMs: 45_000,
      });
      expect((await get(`/v1/exports/${id}/download`)).status).toBe(410);
    });
  });

  describe('GET /v1/turns', () => {
    let gateway: AppProcess;
    let analyst: string;
    let user: string;
    const api = async (token: string, method: string, route: string, body?: unknown) => {
      const res = await fetch(`${gateway.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        text,
        body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null,
      };
    };
    const finished = (token: string, id: string) =>
      waitFor(
        async () => {
          const { body } = await api(token, 'GET', `/v1/exports/${id}`);
          return ['succeeded', 'failed', 'erased'].includes(body.status) && body;
        },
        { what: 'the export to finish', timeoutMs: 45_000 },
      );
    const call = async (token: string, query = '') => {
      const res = await fetch(`${gateway.url}/v1/turns${query}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const signIn = async (roles: string[]) => {
      const email = `${roles.join('-')}-${Date.now()}@example.com`;
      const password = 'a good passphrase';
      const post = (route: string, body: unknown) =>
        fetch(`${gateway.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((res) => res.json() as Promise<Record<string, any>>);
      const { userId } = await post('/v1/auth/register', { email, password, displayName: 'Data' });
      await f.db.query(`UPDATE users SET roles = $1 WHERE id = $2`, [roles, userId]);
      return (await post('/v1/auth/login', { email, password }))['accessToken'] as string;
    };

    beforeAll(async () => {
      gateway = await startApp('chat-gateway', {
        DATABASE_URL: (f.db.options as { url: string }).url,
        LLM_BASE_URL: f.judge.url,
        EXPORT_PSEUDONYM_KEY: KEY,
        EXPORT_DIR: path.join(out, 'gateway'),
        // The test of an export whose process died waits for the runner's sweep.
        EXPORT_SWEEP_MS: '500',
      });
      analyst = await signIn(['analyst']);
      user = await signIn(['user']);
    }, 60_000);
    afterAll(async () => {
      await gateway?.stop();
    });

    it('pages through the consenting users’ labelled turns, pseudonymous, in a stable order', async () => {
      const first = await call(analyst, '?limit=2');
      expect(first.status).toBe(200);
      expect(first.body['items']).toHaveLength(2);
      const second = await call(analyst, `?limit=2&cursor=${first.body['nextCursor']}`);
      expect(second.body['items']).toHaveLength(1);
      expect(second.body['nextCursor']).toBeNull();
      const all = [...first.body['items'], ...second.body['items']];
      const { dir } = await exportOf('turns', 'jsonl');
      expect(all).toEqual(await readJsonl(path.join(dir, 'turns.jsonl')));
      expect(JSON.stringify(all)).not.toContain(consenting.userId);
      expect(JSON.stringify(all)).not.toContain('secret diary');
    });

    it('filters by reward ranges, feedback and time', async () => {
      const all = (await call(analyst, '')).body['items'] as any[];
      const judged = all.filter((t) => t.rewards.empathy === 0.75);
      expect(judged.length).toBeGreaterThan(0);
      expect((await call(analyst, '?empathyMin=0.7&empathyMax=0.8')).body['items']).toEqual(judged);
      expect((await call(analyst, '?empathyMin=0.8')).body['items']).toEqual([]);
      const liveDelta = all.filter((t) => t.liveEmotionDelta !== null && t.liveEmotionDelta >= 0);
      expect((await call(analyst, '?liveEmotionDeltaMin=0')).body['items']).toEqual(liveDelta);
      expect((await call(analyst, '?thumb=up')).body['items']).toEqual([]);
      expect((await call(analyst, `?to=2000-01-01T00:00:00Z`)).body['items']).toEqual([]);
      expect((await call(analyst, `?checkpointId=base`)).body['items']).toEqual(all);

      // Persona traits and language, as the live persona had inferred them when the turn was made.
      const persona = {
        schemaVersion: 1,
        fields: {
          hiddenNeed: { value: 'validation', confidence: 0.8 },
          language: { value: 'de', confidence: 0.9 },
        },
      };
      await f.db.query(
        `UPDATE reward_turns SET turn = jsonb_set(turn, '{personaSnapshot}', $2::jsonb) WHERE turn_id = $1`,
        [kept.turnId, JSON.stringify(persona)],
      );
      try {
        for (const query of ['?trait=hiddenNeed:validation', '?language=de']) {
          const items = (await call(analyst, query)).body['items'] as any[];
          expect([query, items.map((t) => t.turnId)]).toEqual([query, [kept.turnId]]);
          expect(items[0].persona).toEqual(persona);
        }
        expect((await call(analyst, '?trait=hiddenNeed:advice')).body['items']).toEqual([]);
        expect((await call(analyst, '?trait=not-a-trait')).status).toBe(400);
      } finally {
        await f.db.query(
          `UPDATE reward_turns SET turn = jsonb_set(turn, '{personaSnapshot}', '{}'::jsonb) WHERE turn_id = $1`,
          [kept.turnId],
        );
      }
    });

    it('refuses plain users, bad cursors and unknown filters; an analyst cannot read or write in a user’s chat', async () => {
      expect((await call(user)).status).toBe(403);
      expect((await api(analyst, 'GET', `/v1/conversations/${consenting.id}/messages`)).status).toBe(404);
      const send = await api(analyst, 'POST', `/v1/conversations/${consenting.id}/messages`, {
        content: 'hello',
        clientMessageId: 'as-someone-else',
      });
      expect(send.status).toBe(404);
      expect((await call(analyst, '?cursor=bm90LWEtY3Vyc29y')).status).toBe(400);
      expect((await call(analyst, '?limit=1000')).status).toBe(400);
      expect((await call(analyst, '?userId=x')).status).toBe(400);
    });

    it('takes one date-time type: an offset names the same instant, what PostgreSQL cannot store is refused', async () => {
      const all = (await call(analyst, '')).body['items'] as any[];
      const last = all.at(-1).repliedAt as string;
      // The last turn's time, written 14 hours ahead with its offset: the same instant, so the same one turn.
      const ahead = new Date(Date.parse(last) + 14 * 3_600_000).toISOString().replace('Z', '+14:00');
      const from = await call(analyst, `?from=${encodeURIComponent(ahead)}`);
      expect(from.body['items'].map((t: any) => t.turnId)).toEqual([all.at(-1).turnId]);

      const exportsBefore = await f.db.query(`SELECT count(*)::int AS n FROM dataset_exports`);
      for (const [field, value] of [
        ['from', '0001-01-01T00:30:00+01:00'],
        ['to', '9999-12-31T23:30:00-01:00'],
        ['from', '0000-06-01T00:00:00Z'],
        ['to', '2026-01-01T00:00:00.1234567Z'],
        ['from', '2026-01-01T00:00:00'],
      ] as const) {
        const listed = await call(analyst, `?${field}=${encodeURIComponent(value)}`);
        expect([value, listed.status, listed.body['error']?.details]).toEqual([
          value,
          400,
          [{ path: field, message: expect.any(String) }],
        ]);
        const exported = await api(analyst, 'POST', '/v1/exports', {
          kind: 'turns',
          filters: { [field]: value },
        });
        expect([value, exported.status, exported.body.error?.details]).toEqual([
          value,
          400,
          [{ path: `filters.${field}`, message: expect.any(String) }],
        ]);
      }
      // Refused at POST: no export was queued to fail later.
      expect(await f.db.query(`SELECT count(*)::int AS n FROM dataset_exports`)).toEqual(exportsBefore);
    });

    it('accepts only cursors it gave: an edited, unsigned or re-signed cursor is a 400 naming the field', async () => {
      const first = await call(analyst, '?limit=1');
      const cursor = first.body['nextCursor'] as string;
      const [payload, mac] = cursor.split('.') as [string, string];
      const contents = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      expect(contents.repliedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const forged of [
        `${encode({ ...contents, repliedAt: '0000-01-01T00:00:00Z' })}.${mac}`,
        `${encode({ ...contents, repliedAt: 'Sat, 01 Jan 0000 00:00:00 GMT' })}.${mac}`,
        `${encode({ ...contents, turnId: '00000000-0000-0000-0000-000000000000' })}.${mac}`,
        encode(contents),
        `${payload}.${'A'.repeat(mac.length)}`,
        `${payload}.${mac}x`,
      ]) {
        const res = await call(analyst, `?limit=1&cursor=${forged}`);
        expect([forged, res.status, res.body['error']?.details?.[0]?.path]).toEqual([forged, 400, 'cursor']);
      }
      const second = await call(analyst, `?limit=1&cursor=${cursor}`);
      expect(second.body['items'][0].turnId).not.toBe(first.body['items'][0].turnId);
    });

    it('exports in the background: 202, progress, manifest, and a download equal to the library’s export', async () => {
      const started = await api(analyst, 'POST', '/v1/exports', { kind: 'turns', format: 'jsonl' });
      expect(started.status).toBe(202);
      expect(started.headers.get('location')).toBe(`/v1/exports/${started.body.id}`);
      const done = await finished(analyst, started.body.id);
      expect(done).toMatchObject({ status: 'succeeded', rows: 3, progress: { read: 3, total: 3 } });
      expect(done.manifest).toMatchObject({ kind: 'turns', rows: 3, labelVersions: ['labeller-v1'] });
      const file = await api(analyst, 'GET', `/v1/exports/${started.body.id}/download`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('application/x-ndjson');
      expect(createHash('sha256').update(file.text).digest('hex')).toBe(done.manifest.files[0].sha256);
      const expected = await readJsonl(path.join((await exportOf('turns', 'jsonl')).dir, 'turns.jsonl'));
      expect(
        file.text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      ).toEqual(expected);

      expect((await api(user, 'POST', '/v1/exports', { kind: 'turns' })).status).toBe(403);
      expect((await api(user, 'GET', `/v1/exports/${started.body.id}/download`)).status).toBe(403);
      expect((await api(analyst, 'POST', '/v1/exports', { kind: 'everything' })).status).toBe(400);
    });

    it('a download survives its file being removed midway; the gateway lives and later says the file is gone', async () => {
      const started = await api(analyst, 'POST', '/v1/exports', { kind: 'turns', format: 'jsonl' });
      const done = await finished(analyst, started.body.id);
      expect(done.status).toBe('succeeded');
      // A file large enough that the download is still running when it is removed.
      const file = path.join(out, 'gateway', started.body.id, done.manifest.files[0].name);
      const size = 32 * 1024 * 1024;
      await writeFile(file, Buffer.alloc(size, 'x'));

      const response = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(
          `${gateway.url}/v1/exports/${started.body.id}/download`,
          { headers: { authorization: `Bearer ${analyst}` } },
          resolve,
        ).on('error', reject),
      );
      expect(response.statusCode).toBe(200);
      let received = 0;
      const ended = new Promise<boolean>((resolve) => {
        response.on('end', () => resolve(true));
        response.on('error', () => resolve(false));
        response.on('aborted', () => resolve(false));
      });
      // The first bytes arrive, then the export's folder is removed (as an erasure does) before the rest is read.
      await new Promise<void>((resolve) =>
        response.once('data', (chunk: Buffer) => {
          received += chunk.length;
          response.pause();
          resolve();
        }),
      );
      await rm(path.join(out, 'gateway', started.body.id), { recursive: true, force: true });
      response.on('data', (chunk: Buffer) => (received += chunk.length));
      response.resume();
      expect(await ended).toBe(true);
      expect(received).toBe(size);

      expect((await fetch(`${gateway.url}/health/live`)).status).toBe(200);
      const again = await api(analyst, 'GET', `/v1/exports/${started.body.id}/download`);
      expect([again.status, again.body.error.code]).toEqual([410, 'export_files_missing']);
    });

    it('runs again an export whose process died, and leaves one whose process is alive', async () => {
      const [dead, alive] = (await f.db.query(
        `INSERT INTO dataset_exports (kind, format, filters, status, started_at, heartbeat_at) VALUES
           ('turns', 'jsonl', '{}', 'running', now() - interval '1 hour', now() - interval '1 hour'),
           ('turns', 'jsonl', '{}', 'running', now(), now() + interval '1 hour')
         RETURNING id`,
      )) as { id: string }[];
      const done = await finished(analyst, dead!.id);
      expect(done).toMatchObject({ status: 'succeeded', rows: 3 });
      expect((await api(analyst, 'GET', `/v1/exports/${alive!.id}`)).body.status).toBe('running');
      await f.db.query(`DELETE FROM dataset_exports WHERE id = $1`, [alive!.id]);
    });

    // Last: it erases the consenting user.
    it('erasing a user erases every stored export holding them, files included; later exports never hold them', async () => {
      const started = await api(analyst, 'POST', '/v1/exports', { kind: 'preferences', format: 'csv' });
      const done = await finished(analyst, started.body.id);
      expect(done.status).toBe('succeeded');
      // One made by the command line, where the gateway keeps exports: listed beside the API's, erased the same way.
      const cli = JSON.parse(
        (await cliExport(['--kind', 'turns', '--format', 'jsonl'], path.join(out, 'gateway'), dbUrl()))
          .stdout,
      ) as Manifest;
      const listed = (await api(analyst, 'GET', '/v1/exports')).body.items as {
        id: string;
        origin: string;
      }[];
      expect(listed.find((e) => e.id === cli.id)?.origin).toBe('cli');
      expect((await api(analyst, 'GET', `/v1/exports/${cli.id}/download`)).status).toBe(200);
      const email = `consenting-${Date.now()}@example.com`;
      await f.db.query(`UPDATE users SET email = $2, password_hash = $3 WHERE id = $1`, [
        consenting.userId,
        email,
        await hashPassword('a good passphrase'),
      ]);
      const login = await fetch(`${gateway.url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'a good passphrase' }),
      }).then((res) => res.json() as Promise<{ accessToken: string }>);
      expect((await api(login.accessToken, 'DELETE', '/v1/me')).status).toBe(204);

      await waitFor(
        async () => (await api(analyst, 'GET', `/v1/exports/${started.body.id}`)).body.manifest === null,
        {
          what: 'the export erased and its files removed',
          timeoutMs: 45_000,
        },
      );
      expect((await api(analyst, 'GET', `/v1/exports/${started.body.id}`)).body.status).toBe('erased');
      expect((await api(analyst, 'GET', `/v1/exports/${started.body.id}/download`)).status).toBe(410);
      await waitFor(async () => (await api(analyst, 'GET', `/v1/exports/${cli.id}`)).body.manifest === null, {
        what: "the CLI's export erased and its files removed",
        timeoutMs: 45_000,
      });
      expect((await api(analyst, 'GET', `/v1/exports/${cli.id}`)).body.status).toBe('erased');
      // The rows are erased in the erasure's transaction; the files go in the export runner's next round.
      const filesWithTheirWords = async () =>
        (
          await run('grep', ['-rl', 'driving test', path.join(out, 'gateway')]).catch(
            (error: { stdout: string }) => error,
          )
        ).stdout;
      await waitFor(async () => (await filesWithTheirWords()) === '', {
        what: 'no export file holding their words',
        timeoutMs: 45_000,
      });

      const again = await api(analyst, 'POST', '/v1/exports', { kind: 'turns', format: 'jsonl' });
      const after = await finished(analyst, again.body.id);
      expect(after).toMatchObject({ status: 'succeeded', rows: 0 });
    });
  });
});
