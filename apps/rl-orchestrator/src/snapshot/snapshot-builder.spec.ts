import { type DatasetKind, type ExportRequest, LabelledTurnsSource, type Manifest } from '@echoloop/datasets';
import { CLOCK } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JobFailure } from '../pipeline/job-failure';
import { ORCHESTRATOR_ENV } from '../tokens';
import { SnapshotBuilder } from './snapshot-builder';

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
});
const pairs = (count: number) => Array.from({ length: count }, (_, i) => pair(`user-${i}`));

async function setUp(env: { RL_MIN_PAIRS?: number } = {}) {
  const workDir = await mkdtemp(path.join(tmpdir(), 'snapshot-builder-'));
  /** What the next export writes: its rows, or null for an export that writes no file. */
  let rows: object[] | null = [];
  const turns = {
    export: jest.fn(async (request: Omit<ExportRequest, 'db'>) => {
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
          RL_MIN_PAIRS: env.RL_MIN_PAIRS ?? 5,
        },
      },
      { provide: CLOCK, useValue: () => NOW },
    ],
  }).compile();
  return {
    builder: moduleRef.get(SnapshotBuilder),
    turns,
    workDir,
    willWrite: (next: object[] | null) => {
      rows = next;
    },
    snapshotDir: (jobId: string) => path.join(workDir, 'snapshots', jobId),
    cleanUp: () => rm(workDir, { recursive: true, force: true }),
  };
}

type Fixture = Awaited<ReturnType<typeof setUp>>;

describe('SnapshotBuilder', () => {
  let fixtures: Fixture[] = [];
  const open = async (env?: { RL_MIN_PAIRS?: number }) => {
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

    const outcome = await builder.build('job-1', 'preferences');

    expect(turns.export).toHaveBeenCalledWith({
      id: 'job-1',
      kind: 'preferences',
      format: 'jsonl',
      filters: {},
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
      train: { file: 'train.jsonl', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      heldout: { file: 'heldout.jsonl' },
      export: { id: 'job-1', rows: 40 },
    });
    expect(snapshot.train.rows + snapshot.heldout.rows).toBe(40);
    expect(snapshot.heldout.rows).toBeGreaterThan(0);
    expect(snapshot.train.rows).toBeGreaterThan(snapshot.heldout.rows);
    const heldoutUsers = (await readFile(path.join(snapshot.dir, 'heldout.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { user: string }).user);
    const trainText = await readFile(path.join(snapshot.dir, 'train.jsonl'), 'utf8');
    for (const user of heldoutUsers) expect(trainText).not.toContain(`"user":"${user}"`);
  });

  it('holds out the same users for the same job, other users for another: the seed is the job id', async () => {
    const { builder, willWrite } = await open({ RL_MIN_PAIRS: 1 });
    const rows = pairs(30);
    willWrite(rows);
    const first = await builder.build('job-a', 'preferences');
    const again = await builder.build('job-a', 'preferences');
    const other = await builder.build('job-b', 'preferences');

    if (!first.ok || !again.ok || !other.ok) throw new Error('skipped');
    expect(again.snapshot.heldout.sha256).toBe(first.snapshot.heldout.sha256);
    expect(other.snapshot.heldout.sha256).not.toBe(first.snapshot.heldout.sha256);
  });

  it.each<[DatasetKind, object[], RegExp]>([
    ['preferences', pairs(4), /^too_little_data: [0-4] training pairs, at least 5 needed$/],
    ['verl', [], /^too_little_data: 0 training rows, at least 5 needed$/],
  ])('skips a %s job with too little data and removes its files', async (kind, rows, reason) => {
    const { builder, willWrite, snapshotDir } = await open();
    willWrite(rows);

    const outcome = await builder.build('job-small', kind);

    expect(outcome).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    if (!outcome.ok) {
      const details = outcome.details as { rows: number; train: number; heldout: number };
      expect(details.rows).toBe(rows.length);
      expect(details.train + details.heldout).toBe(rows.length);
      expect(outcome.reason).toContain(`: ${details.train} training`);
    }
    expect(existsSync(snapshotDir('job-small'))).toBe(false);
  });

  it('trains on exactly RL_MIN_PAIRS training pairs, and skips a split one pair short', async () => {
    const probe = await open({ RL_MIN_PAIRS: 1 });
    probe.willWrite(pairs(12));
    const first = await probe.builder.build('job-edge', 'preferences');
    if (!first.ok) throw new Error(first.reason);
    const train = first.snapshot.train.rows;

    const exact = await open({ RL_MIN_PAIRS: train });
    exact.willWrite(pairs(12));
    await expect(exact.builder.build('job-edge', 'preferences')).resolves.toMatchObject({ ok: true });

    const short = await open({ RL_MIN_PAIRS: train + 1 });
    short.willWrite(pairs(12));
    await expect(short.builder.build('job-edge', 'preferences')).resolves.toMatchObject({
      ok: false,
      reason: `too_little_data: ${train} training pairs, at least ${train + 1} needed`,
    });
  });

  it('fails the job with invalid_snapshot when a row does not match its schema, and removes its files', async () => {
    const { builder, willWrite, snapshotDir } = await open();
    willWrite([pair('a'), { ...pair('b'), chosenTurnId: 'not-a-uuid' }]);

    const attempt = builder.build('job-bad', 'preferences');

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

    await expect(builder.build('job-sft', 'sft')).resolves.toMatchObject({ ok: true });
  });

  it('an export that wrote no file is an error, not an empty snapshot', async () => {
    const { builder, willWrite } = await open();
    willWrite(null);

    await expect(builder.build('job-none', 'sft')).rejects.toThrow('the sft export wrote no file');
  });
});
