import { type DatasetKind, type ExportRequest, LabelledTurnsSource, type Manifest } from '@echoloop/datasets';
import { CLOCK } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JobFailure } from '../jobs/job-failure';
import { ORCHESTRATOR_ENV } from '../tokens';
import { SnapshotBuilder, type SnapshotParent } from './snapshot-builder';

const NOW = new Date('2026-11-24T06:00:00Z');
const KEY = 'k'.repeat(40);

const noRewards = { empathy: null, humanlike: null, live_emotion: null, implicit: null, composite: null };
/** A preference pair of one user, as the export writes it. */
const pair = (user: string) => ({
  prompt: [{ role: 'user', content: 'rough day' }],
  chosen: [{ role: 'assistant', content: 'That sounds exhausting.' }],
  rejected: [{ role: 'assistant', content: 'ok' }],
  source: 'swipe',
  chosenTurnId: randomUUID(),
  rejectedTurnId: randomUUID(),
  user,
  checkpointId: 'base',
  chosenRewards: noRewards,
  rejectedRewards: noRewards,
  chosenNotes: { tags: [], comment: null },
  rejectedNotes: { tags: [], comment: null },
});
const pairs = (count: number) => Array.from({ length: count }, (_, i) => pair(`user-${i}`));

const BASE: SnapshotParent = { checkpointId: 'base', jobId: null, adapterPath: null, cutoff: null };

type Env = { RL_MIN_PAIRS?: number; RL_MIN_VALIDATION_PAIRS?: number };

async function setUp(env: Env = {}) {
  const workDir = await mkdtemp(path.join(tmpdir(), 'snapshot-builder-'));
  /** What the next export writes: its rows, or null for an export that writes no file. */
  let write: (request: Omit<ExportRequest, 'db'>) => object[] | null = () => [];
  const turns = {
    export: jest.fn(async (request: Omit<ExportRequest, 'db'>) => {
      const rows = write(request);
      const id = request.id ?? randomUUID();
      const dir = path.join(request.outDir, id);
      await mkdir(dir, { recursive: true });
      const name = `${request.kind}.${request.format}`;
      if (rows) await writeFile(path.join(dir, name), rows.map((r) => `${JSON.stringify(r)}\n`).join(''));
      const manifest = {
        id,
        kind: request.kind,
        format: request.format,
        rows: rows?.length ?? 0,
        files: rows ? [{ name, rows: rows.length, bytes: 1, sha256: 'f'.repeat(64) }] : [],
      } as unknown as Manifest;
      return { dir, manifest, userIds: new Set<string>() };
    }),
  };
  const moduleRef = await Test.createTestingModule({
    providers: [
      SnapshotBuilder,
      { provide: LabelledTurnsSource, useValue: turns },
      {
        provide: ORCHESTRATOR_ENV,
        useValue: {
          NODE_ENV: 'test',
          EXPORT_PSEUDONYM_KEY: KEY,
          TRAINING_CONSENT_DEFAULT: true,
          RL_WORK_DIR: workDir,
          RL_HELDOUT_FRACTION: 0.2,
          RL_VALIDATION_FRACTION: 0.2,
          RL_SPLIT_SEED: 'users',
          RL_REPLAY_FRACTION: 0.25,
          RL_MIN_PAIRS: env.RL_MIN_PAIRS ?? 5,
          RL_MIN_VALIDATION_PAIRS: env.RL_MIN_VALIDATION_PAIRS ?? 1,
        },
      },
      { provide: CLOCK, useValue: () => NOW },
    ],
  }).compile();
  return {
    builder: moduleRef.get(SnapshotBuilder),
    turns,
    workDir,
    willWrite: (next: object[] | null | ((request: Omit<ExportRequest, 'db'>) => object[] | null)) => {
      write = typeof next === 'function' ? next : () => next;
    },
    snapshotDir: (jobId: string) => path.join(workDir, 'snapshots', jobId),
    cleanUp: () => rm(workDir, { recursive: true, force: true }),
  };
}

type Fixture = Awaited<ReturnType<typeof setUp>>;

describe('SnapshotBuilder', () => {
  let fixtures: Fixture[] = [];
  const open = async (env?: Env) => {
    const fixture = await setUp(env);
    fixtures.push(fixture);
    return fixture;
  };
  afterEach(async () => {
    await Promise.all(fixtures.map((f) => f.cleanUp()));
    fixtures = [];
  });

  it("exports the job's dataset with the privacy and consent settings, then splits it by user", async () => {
    const { builder, turns, willWrite, workDir, snapshotDir } = await open();
    willWrite(pairs(40));

    const outcome = await builder.build('job-1', 'preferences', BASE);

    expect(turns.export).toHaveBeenCalledTimes(1);
    expect(turns.export).toHaveBeenCalledWith({
      id: 'job-1',
      kind: 'preferences',
      format: 'jsonl',
      filters: { to: NOW.toISOString() },
      outDir: path.resolve(workDir, 'snapshots'),
      privacy: { pseudonymKey: KEY },
      consentDefault: true,
      now: expect.any(Function),
    });
    expect(turns.export.mock.calls[0]?.[0].now?.()).toEqual(NOW);
    if (!outcome.ok) throw new Error(`skipped: ${outcome.reason}`);
    const { snapshot } = outcome;
    expect(snapshot).toMatchObject({
      id: 'job-1',
      kind: 'preferences',
      dir: snapshotDir('job-1'),
      cutoff: NOW.toISOString(),
      parent: BASE,
      train: { file: 'train.jsonl', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      validation: { file: 'validation.jsonl' },
      heldout: { file: 'heldout.jsonl' },
      replay: { fraction: 0, read: 0, kept: 0 },
      export: { id: 'job-1', rows: 40 },
    });
    expect(snapshot.train.rows + snapshot.validation.rows + snapshot.heldout.rows).toBe(40);
    expect(snapshot.heldout.rows).toBeGreaterThan(0);
    expect(snapshot.validation.rows).toBeGreaterThan(0);
    expect(snapshot.train.rows).toBeGreaterThan(snapshot.heldout.rows);
    const usersOf = async (file: string) =>
      (await readFile(path.join(snapshot.dir, file), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { user: string }).user);
    const trainUsers = new Set(await usersOf('train.jsonl'));
    for (const file of ['heldout.jsonl', 'validation.jsonl']) {
      for (const user of await usersOf(file)) expect(trainUsers.has(user)).toBe(false);
    }
  });

  it('holds out the same users in every job: a user held out once is never trained on', async () => {
    const { builder, willWrite } = await open({ RL_MIN_PAIRS: 1 });
    willWrite(pairs(30));
    const first = await builder.build('job-a', 'preferences', BASE);
    const other = await builder.build('job-b', 'preferences', BASE);

    if (!first.ok || !other.ok) throw new Error('skipped');
    expect(other.snapshot.heldout.sha256).toBe(first.snapshot.heldout.sha256);
    expect(other.snapshot.validation.sha256).toBe(first.snapshot.validation.sha256);
  });

  it('builds on a parent: the data since its cutoff, and a stable sample of the older replayed', async () => {
    const { builder, turns, willWrite, workDir } = await open({ RL_MIN_PAIRS: 1 });
    const older = Array.from({ length: 200 }, (_, i) => pair(`old-${i}`));
    willWrite((request) => (request.filters.from ? pairs(30) : older));
    const parent = {
      checkpointId: 'rl-1',
      jobId: 'job-0',
      adapterPath: '/a',
      cutoff: '2026-11-20T00:00:00.000Z',
    };

    const outcome = await builder.build('job-2', 'preferences', parent);

    expect(turns.export.mock.calls.map(([request]) => [request.id, request.filters])).toEqual([
      ['job-2', { from: parent.cutoff, to: NOW.toISOString() }],
      ['job-2-replay', { to: parent.cutoff }],
    ]);
    if (!outcome.ok) throw new Error(outcome.reason);
    const { snapshot } = outcome;
    expect(snapshot.parent).toEqual(parent);
    expect(snapshot.replay).toMatchObject({ fraction: 0.25, read: 200 });
    // A quarter of the 200 older pairs, give or take the hash.
    expect(snapshot.replay.kept).toBeGreaterThan(30);
    expect(snapshot.replay.kept).toBeLessThan(70);
    expect(snapshot.train.rows + snapshot.validation.rows + snapshot.heldout.rows).toBe(
      30 + snapshot.replay.kept,
    );
    // The replay export's files are gone; the snapshot's remain until the job ends.
    expect(existsSync(path.join(workDir, 'snapshots', 'job-2-replay'))).toBe(false);
    expect(existsSync(snapshot.dir)).toBe(true);
  });

  it.each<[DatasetKind, object[], RegExp]>([
    ['preferences', pairs(4), /^too_little_data: [0-4] training pairs, at least 5 needed$/],
    ['verl', [], /^too_little_data: 0 training rows, at least 5 needed$/],
  ])('skips a %s job with too little data and removes its files', async (kind, rows, reason) => {
    const { builder, willWrite, snapshotDir } = await open();
    willWrite(rows);

    const outcome = await builder.build('job-small', kind, BASE);

    expect(outcome).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    if (!outcome.ok) {
      // Recorded like a built snapshot's splits, so the job page and the loop's report show what was too little.
      const { export: manifest, train, validation, heldout } = outcome.details;
      expect(manifest['rows']).toBe(rows.length);
      expect(train.rows + validation.rows + heldout.rows).toBe(rows.length);
      expect(outcome.reason).toContain(`: ${train.rows} training`);
    }
    expect(existsSync(snapshotDir('job-small'))).toBe(false);
  });

  it('trains on exactly RL_MIN_PAIRS training pairs, and skips a split one pair short', async () => {
    const probe = await open({ RL_MIN_PAIRS: 1 });
    probe.willWrite(pairs(12));
    const first = await probe.builder.build('job-edge', 'preferences', BASE);
    if (!first.ok) throw new Error(first.reason);
    const train = first.snapshot.train.rows;

    const exact = await open({ RL_MIN_PAIRS: train });
    exact.willWrite(pairs(12));
    await expect(exact.builder.build('job-edge', 'preferences', BASE)).resolves.toMatchObject({ ok: true });

    const short = await open({ RL_MIN_PAIRS: train + 1 });
    short.willWrite(pairs(12));
    await expect(short.builder.build('job-edge', 'preferences', BASE)).resolves.toMatchObject({
      ok: false,
      reason: `too_little_data: ${train} training pairs, at least ${train + 1} needed`,
    });
  });

  it('skips a job whose validation split is under the minimum: a step could not be told from chance', async () => {
    const { builder, willWrite } = await open({ RL_MIN_PAIRS: 1, RL_MIN_VALIDATION_PAIRS: 100 });
    willWrite(pairs(40));
    await expect(builder.build('job-val', 'preferences', BASE)).resolves.toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^too_little_data: \d+ validation pairs, at least 100 needed$/),
    });
  });

  it('fails the job with invalid_snapshot when a row does not match its schema, and removes its files', async () => {
    const { builder, willWrite, snapshotDir } = await open();
    willWrite([pair('a'), { ...pair('b'), chosenTurnId: 'not-a-uuid' }]);

    const attempt = builder.build('job-bad', 'preferences', BASE);

    await expect(attempt).rejects.toThrow(JobFailure);
    await expect(attempt).rejects.toMatchObject({
      code: 'invalid_snapshot',
      message: expect.stringContaining('row 2 does not match its schema'),
    });
    expect(existsSync(snapshotDir('job-bad'))).toBe(false);
  });

  it('does not check the rows of a kind without a record schema', async () => {
    const { builder, willWrite } = await open({ RL_MIN_PAIRS: 1 });
    willWrite(Array.from({ length: 10 }, (_, i) => ({ user: `u${i}`, anything: true })));

    await expect(builder.build('job-sft', 'sft', BASE)).resolves.toMatchObject({ ok: true });
  });

  it('an export that wrote no file is an error, not an empty snapshot', async () => {
    const { builder, willWrite } = await open();
    willWrite(null);

    await expect(builder.build('job-none', 'sft', BASE)).rejects.toThrow('the sft export wrote no file');
  });
});
