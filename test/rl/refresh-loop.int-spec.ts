import { isRlJobEnded, RL_JOB_ACTIVE_STATUSES } from '@echoloop/vocabulary';
import { rlJobStatusV1, rlJobStatusV2 } from '@echoloop/contracts';
import { type AppProcess, findOnTopic, testKafka, waitFor } from '@echoloop/testing';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  BASE_MODEL,
  call,
  type Kept,
  MODEL_URL,
  RAY_URL,
  ROOT,
  type RefreshFixture,
  startRefreshFixture,
  warmthJudge,
  warmthSimulator,
} from './refresh-fixture';

const PROMPT = 'I feel lonely since I moved to a new city.';
// Enough training that the adapter moves the greedy answer of a base that is already fairly warm: here 6 steps
// already reach a reward margin of 4 (12 reach 8.5) and move it; 8 leave room.
const STEPS = Number(process.env['RL_TEST_STEPS'] ?? 8);
const LEARNING_RATE = '2e-3';
// The drills: new users, all of whom kept the worse reply, and enough steps for the candidate to answer like it.
const DRILL_USERS = 50;
const DRILL_STEPS = Number(process.env['RL_DRILL_STEPS'] ?? 12);
// Enough steps that the validation reward moves past the noise of 4 samples per prompt: at 4 steps the gain was
// +0.04 to +0.08 in some runs and nothing in another. Validated every 2 steps at a learning rate of 3e-3: at 5e-3,
// validated only at its last step, one run reached 0.581 against the parent's 0.497 but at a KL of 1.80, outside the
// trust region, and shipped nothing.
const GRPO_STEPS = Number(process.env['RL_GRPO_STEPS'] ?? 8);
const GRPO_LEARNING_RATE = '3e-3';
const GRPO_USERS = 40;
// Replies in each simulated conversation: the scored one and one the policy answers after it.
const SENTIENT_TURNS = 2;

/** The model server's greedy answer to the fixed prompt, from the base or from an adapter. */
async function greedy(model: string): Promise<string> {
  const { status, body } = await call(MODEL_URL, 'POST', '/chat/completions', {
    body: { model, messages: [{ role: 'user', content: PROMPT }], temperature: 0, max_tokens: 80 },
  });
  expect(status).toBe(200);
  return body.choices[0].message.content as string;
}

/**
 * The RL loop for real on this machine: labelled swipes trigger a refresh by threshold, the snapshot is built, a
 * DPO job trains on the local Ray head, its adapter is served by the local model server, gated, registered and put
 * in an experiment that routes users. Then every way it can go wrong leaves the default as it was.
 */
describe('RL refresh loop on PostgreSQL, Kafka, Ray and the local model server', () => {
  let f: RefreshFixture;
  let orchestrator: AppProcess;
  const rl = (method: string, route: string, body?: unknown) =>
    call(orchestrator.url, method, route, { key: f.key, ...(body !== undefined && { body }) });
  const gw = (method: string, route: string, body?: unknown) =>
    call(f.gateway.url, method, route, { key: f.key, ...(body !== undefined && { body }) });
  // A job that does not end says where it stopped, with the orchestrator's last log lines.
  const ended = async (id: string, timeoutMs = 600_000) => {
    let last: { status?: string; updatedAt?: string; logsTail?: string | null } = {};
    return waitFor(
      async () => {
        const { body } = await rl('GET', `/v1/rl/jobs/${id}`);
        last = body;
        return isRlJobEnded(body.status) && body;
      },
      { timeoutMs, intervalMs: 500, what: `RL job ${id} to end` },
    ).catch((error: Error) => {
      const tail = orchestrator.logs().split('\n').slice(-40).join('\n');
      throw new Error(
        `${error.message} (last ${last.status ?? 'unknown'} at ${last.updatedAt ?? '?'})\njob log:\n${last.logsTail ?? ''}\norchestrator:\n${tail}`,
      );
    });
  };
  const defaultCheckpoint = async () =>
    ((await gw('GET', '/v1/checkpoints')).body.items as { id: string; isDefault: boolean }[]).find(
      (c) => c.isDefault,
    )?.id;
  /** The LoRA adapters the engine serves now. */
  const served = async () =>
    ((await call(MODEL_URL, 'GET', '/models')).body.data as { id: string; parent: string | null }[])
      .filter((m) => m.parent !== null)
      .map((m) => m.id);

  /**
   * What the labeller keeps per arm once enough users have talked to both: 150 users an arm, their per-user mean
   * composites averaging `means`, variance 0.04.
   */
  const seedArmMetrics = async (experimentId: string, means: Record<string, number>) => {
    for (const [armId, mean] of Object.entries(means)) {
      await f.labeller.db.query(
        `INSERT INTO experiment_arm_metrics (experiment_id, arm_id, metric, users, sum, sum_squares, turns)
         VALUES ($1, $2, 'composite', 150, $3, $4, 150)
         ON CONFLICT (experiment_id, arm_id, metric)
         DO UPDATE SET users = 150, sum = $3, sum_squares = $4, turns = 150`,
        [experimentId, armId, 150 * mean, 150 * (0.04 + mean * mean)],
      );
    }
  };

  beforeAll(async () => {
    f = await startRefreshFixture();
    orchestrator = await f.startOrchestrator({
      RL_THRESHOLD_PAIRS: '20',
      RL_MAX_STEPS: String(STEPS),
      RL_LEARNING_RATE: LEARNING_RATE,
    });
  }, 1_200_000);

  afterAll(() => f?.close(), 60_000);

  let success: any;

  it('a threshold of new preference pairs triggers one refresh that ends in a served, gated candidate and an experiment', async () => {
    expect((await rl('GET', '/v1/rl/jobs')).body.items).toEqual([]);
    await f.seedPreferences(20);
    const job = await waitFor(
      async () => (await rl('GET', '/v1/rl/jobs')).body.items[0] as { id: string } | undefined,
      { timeoutMs: 60_000, what: 'the threshold to trigger a refresh' },
    );
    success = await ended(job.id);
    expect(success).toMatchObject({
      status: 'succeeded',
      trigger: 'threshold',
      template: 'trl-dpo',
      runner: 'ray',
    });

    // The trigger's decision, with its reason.
    const triggers = (await rl('GET', '/v1/rl/triggers')).body;
    expect(triggers.decisions).toContainEqual(
      expect.objectContaining({
        trigger: 'threshold',
        decision: 'started',
        jobId: job.id,
        reason: expect.stringMatching(/new preference pairs \(threshold 20\)/),
      }),
    );

    // The snapshot: pseudonymous pairs, held out by user, with the export's manifest.
    const { dataset } = success;
    expect([dataset.train.rows, dataset.validation.rows, dataset.heldout.rows]).toEqual([10, 7, 3]);
    expect(dataset.train.rows + dataset.validation.rows + dataset.heldout.rows).toBe(dataset.export.rows);
    expect(dataset.export).toMatchObject({ kind: 'preferences', format: 'jsonl', rows: expect.any(Number) });
    expect(dataset.export.rows).toBe(20);
    expect(dataset.train.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Checked against the record schema when split; its files (user text) are gone once the job ended.
    expect(existsSync(dataset.dir)).toBe(false);

    // A real training curve, validated on other users: the best step within the KL budget is the one kept, and
    // the output manifest names the PEFT adapter vLLM loads, the base, and no parent (the default is the base).
    expect(success.metrics.curve.length).toBeLessThanOrEqual(STEPS);
    expect(success.metrics.curve).toHaveLength(success.output.metrics.steps);
    expect(success.metrics.curve[0]).toMatchObject({ step: 1, loss: expect.any(Number) });
    expect(success.metrics.validation.length).toBeGreaterThanOrEqual(1);
    for (const point of success.metrics.validation) {
      expect(point).toMatchObject({
        valLoss: expect.any(Number),
        valAccuracy: expect.any(Number),
        klToParent: expect.any(Number),
      });
    }
    const { selection } = success.output.metrics;
    expect(selection).toMatchObject({ generalised: true, maxKl: 1 });
    expect(selection.valAccuracy).toBeGreaterThan(0.5);
    expect(selection.klToParent).toBeLessThanOrEqual(1);
    expect(success.metrics.validation.map((p: { step: number }) => p.step)).toContain(selection.step);
    expect(success.output.data).toEqual({
      trainPairs: dataset.train.rows,
      validationPairs: dataset.validation.rows,
    });
    expect(success.output.hyperparameters).toMatchObject({
      maxSteps: STEPS,
      learningRate: Number(LEARNING_RATE),
      epochs: 3,
    });
    // Lineage: built on the default (the base), whose endpoint serves the very weights training read.
    expect(success.output.parent).toBeNull();
    expect(dataset.parent).toEqual({
      checkpointId: success.output.serving.defaultCheckpointId,
      jobId: null,
      adapterPath: null,
      cutoff: null,
    });
    expect(dataset.base).toEqual({
      ggufSha256: success.output.baseModel.ggufSha256,
      served: [{ baseUrl: MODEL_URL, root: expect.stringMatching(/hf-base\/[0-9a-f]{16}$/) }],
    });
    const formats = (success.output.adapters as { format: string; path: string }[])
      .map((a) => a.format)
      .sort();
    expect(formats).toEqual(['peft']);
    for (const adapter of success.output.adapters) expect(existsSync(adapter.path)).toBe(true);
    expect(success.output.baseModel).toMatchObject({ ggufSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(success.output.datasetId).toBe(dataset.id);

    // Served under a new versioned name, with the base as its parent; greedy output changed, the base's did not.
    const candidate = success.checkpointId as string;
    expect(candidate).toMatch(/^rl-\d{8}-[0-9a-f]{8}$/);
    const models = (await call(MODEL_URL, 'GET', '/models')).body.data as {
      id: string;
      parent: string | null;
    }[];
    expect(models).toContainEqual(expect.objectContaining({ id: candidate, parent: BASE_MODEL }));
    const [base, tuned, baseAgain] = [
      await greedy(BASE_MODEL),
      await greedy(candidate),
      await greedy(BASE_MODEL),
    ];
    expect(baseAgain).toBe(base);
    expect(tuned).not.toBe(base);

    // Registered as a candidate with its adapter, served where the default is; the default is untouched until
    // someone promotes it.
    const checkpoints = (await gw('GET', '/v1/checkpoints')).body.items as { id: string; status: string }[];
    expect(checkpoints).toContainEqual(
      expect.objectContaining({
        id: candidate,
        status: 'candidate',
        adapterPath: success.output.serving.adapterPath,
        servedOn: [expect.objectContaining({ baseUrl: MODEL_URL, state: 'loaded', detail: null })],
      }),
    );
    expect(await defaultCheckpoint()).toBe(success.output.serving.defaultCheckpointId);

    // Gated on the same ground for both: sentient profiles and held-out prompts, each check a paired difference
    // with its interval; the candidate's answers went through every degeneration guard.
    expect(success.gate).toMatchObject({ passed: true, level: 0.95, reasons: [], notes: [] });
    expect(success.gate.evaluations).toEqual({ candidate: expect.any(String), default: expect.any(String) });
    expect(success.gate.checks.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual([
      ['sentient', 'passed'],
      ['heldout_reward', 'passed'],
      ['repeated_sentences', 'passed'],
      ['repeated_ngrams', 'passed'],
      ['empty_or_refusal', 'passed'],
      ['length_ratio', 'passed'],
      ['kl_to_parent', 'passed'],
    ]);
    for (const check of success.gate.checks.filter((c: { name: string }) => c.name !== 'kl_to_parent')) {
      expect(check.items).toBeGreaterThanOrEqual(2);
      expect(check.interval[0]).toBeLessThanOrEqual(check.interval[1]);
    }
    expect(success.gate.checks.at(-1)).toMatchObject({ name: 'kl_to_parent', default: 0 });
    expect(success.gate.checks.at(-1).candidate).toBeCloseTo(selection.klToParent, 4);

    // Every status change went out on rl.job.status.v2, and on v1 for its consumers, in order.
    for (const contract of [rlJobStatusV2, rlJobStatusV1]) {
      const events = await findOnTopic(
        testKafka(`rl-status-v${contract.schemaVersion}`),
        contract.topic,
        (m) => JSON.parse(m.value?.toString() ?? '{}').payload?.jobId === job.id,
        7,
        30_000,
      );
      // Every active stage in order, then the end (Kafka delivers at least once: a republished event is one).
      const unique = [
        ...new Map(
          events.map((m) => JSON.parse(m.value?.toString() ?? '{}')).map((e) => [e.eventId, e]),
        ).values(),
      ];
      expect(unique.map((e) => e.payload.status)).toEqual([...RL_JOB_ACTIVE_STATUSES, 'succeeded']);
    }
  }, 900_000);

  it('the experiment runs candidate against default and routes users to both', async () => {
    const experiment = (await gw('GET', `/v1/experiments/${success.experimentId}`)).body;
    expect(experiment).toMatchObject({ status: 'running' });
    expect(experiment.arms).toEqual([
      expect.objectContaining({
        id: 'control',
        checkpointId: success.output.serving.defaultCheckpointId,
        control: true,
      }),
      expect.objectContaining({ id: 'candidate', checkpointId: success.checkpointId, weight: 50 }),
    ]);
    const seen = new Set<string>();
    for (let i = 0; i < 24 && seen.size < 2; i += 1) {
      const email = `rl-user-${randomUUID()}@example.com`;
      const { body: user } = await call(f.gateway.url, 'POST', '/v1/auth/register', {
        body: { email, password: 'correct horse battery', displayName: 'Sam' },
      });
      const token = user.accessToken as string;
      const { body: conversation } = await call(f.gateway.url, 'POST', '/v1/conversations', {
        token,
        body: { characterId: f.characterId },
      });
      const sent = await call(f.gateway.url, 'POST', `/v1/conversations/${conversation.id}/messages`, {
        token,
        body: { content: 'hello, long day', clientMessageId: randomUUID() },
      });
      expect(sent.status).toBeLessThan(300);
      const [row] = (await f.labeller.db.query(
        `SELECT checkpoint_id FROM messages WHERE conversation_id = $1 AND role = 'assistant' AND parent_id IS NOT NULL`,
        [conversation.id],
      )) as [{ checkpoint_id: string }];
      seen.add(row.checkpoint_id);
    }
    expect([...seen].sort()).toEqual(
      [success.checkpointId, success.output.serving.defaultCheckpointId].sort(),
    );
  }, 300_000);

  it('two triggers at once start one refresh', async () => {
    const [a, b] = await Promise.all([
      rl('POST', '/v1/rl/jobs', { note: 'first' }),
      rl('POST', '/v1/rl/jobs', { note: 'second' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const started = a.status === 201 ? a.body : b.body;
    const refused = a.status === 409 ? a.body : b.body;
    expect(refused.error).toMatchObject({ code: 'refresh_running', details: { jobId: started.id } });
    expect((await rl('POST', `/v1/rl/jobs/${started.id}/cancel`)).status).toBe(202);
    expect(await ended(started.id)).toMatchObject({ status: 'cancelled' });
    // The refused request got its answer and left no trace; the started one is on record.
    const decisions = (await rl('GET', '/v1/rl/triggers')).body.decisions as { jobId: string }[];
    expect(decisions.filter((d) => d.jobId === started.id)).toEqual([
      expect.objectContaining({
        trigger: 'manual',
        decision: 'started',
        reason: expect.stringMatching(/^by hand: (first|second)$/),
      }),
    ]);
  }, 120_000);

  it('a job cancelled midway is stopped on Ray and leaves production untouched', async () => {
    const before = await defaultCheckpoint();
    const { body: job } = await rl('POST', '/v1/rl/jobs', {
      hyperparameters: { maxSteps: 500, batchSize: 1 },
    });
    // Its model loaded and training begun (the job's own progress line), long before its last step.
    await waitFor(
      async () => {
        const { body } = await rl('GET', `/v1/rl/jobs/${job.id}`);
        return body.status === 'training' && body.metrics?.last?.stage === 'train';
      },
      { timeoutMs: 600_000, intervalMs: 500, what: 'the job to start training' },
    );
    expect((await rl('POST', `/v1/rl/jobs/${job.id}/cancel`)).status).toBe(202);
    const cancelled = await ended(job.id, 120_000);
    expect(cancelled).toMatchObject({
      status: 'cancelled',
      checkpointId: null,
      reason: expect.stringMatching(/stopped/),
    });
    const ray = await call(RAY_URL, 'GET', `/api/jobs/${cancelled.externalId}`);
    expect(ray.body.status).toBe('STOPPED');
    expect(await defaultCheckpoint()).toBe(before);
    expect((await rl('POST', `/v1/rl/jobs/${job.id}/cancel`)).status).toBe(409);
  }, 900_000);

  it('an adapter the engine refuses to load fails the job, serves nothing and names the reason', async () => {
    const before = await defaultCheckpoint();
    // Rank 32 is over the engine's --max-lora-rank 16: vLLM refuses the load.
    const { body: job } = await rl('POST', '/v1/rl/jobs', {
      hyperparameters: { maxSteps: 1, batchSize: 1, loraR: 32 },
    });
    const failed = await ended(job.id);
    expect(failed).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^load_failed: .*LoRA rank 32 is greater than max_lora_rank 16/),
    });
    // Its adapter (named after the job) is not served, and its checkpoint is retired.
    expect((await served()).filter((n) => n.endsWith(job.id.slice(0, 8)))).toEqual([]);
    const checkpoints = (await gw('GET', '/v1/checkpoints')).body.items as { id: string; status: string }[];
    expect(checkpoints.filter((c) => c.id.endsWith(job.id.slice(0, 8)))).toEqual([
      expect.objectContaining({ status: 'retired' }),
    ]);
    expect(await defaultCheckpoint()).toBe(before);
  }, 900_000);

  it('a candidate clearly worse on the primary metric is stopped by its experiment, and its adapter unloaded', async () => {
    expect(await served()).toContain(success.checkpointId);
    await seedArmMetrics(success.experimentId, { control: 0.6, candidate: 0.2 });
    const stopped = await waitFor(
      async () => {
        const { body } = await gw('GET', `/v1/experiments/${success.experimentId}`);
        return body.status === 'stopped' && body;
      },
      { timeoutMs: 30_000, what: 'the experiment to stop itself' },
    );
    expect(stopped.stopReason).toMatch(/^decision: composite lower on arm candidate than control/);
    const audit = (await gw('GET', `/v1/experiments/${success.experimentId}/audit`)).body.items;
    expect(audit.at(-1)).toMatchObject({ action: 'stopped', actorId: null });
    await waitFor(async () => !(await served()).includes(success.checkpointId), {
      timeoutMs: 30_000,
      what: 'the stopped candidate to be unloaded',
    });
    // Of this database's checkpoints (the engine is shared with other suites), exactly the wanted ones are served.
    const checkpoints = (await gw('GET', '/v1/checkpoints')).body.items as {
      id: string;
      servedOn: unknown[];
    }[];
    const ours = new Set(checkpoints.map((c) => c.id));
    const wanted = checkpoints.filter((c) => c.servedOn.length > 0).map((c) => c.id);
    expect((await served()).filter((name) => ours.has(name)).sort()).toEqual(wanted.sort());
  }, 120_000);

  it('a job that fails on Ray says why, with its log', async () => {
    await orchestrator.stop();
    // The job's Python cannot find its package: it fails on Ray, after every check before it passed.
    orchestrator = await f.startOrchestrator({ RL_PYTHON_PATH: '/nonexistent/python' });
    const before = await defaultCheckpoint();
    const { body: job } = await rl('POST', '/v1/rl/jobs', { hyperparameters: { maxSteps: 1 } });
    const failed = await ended(job.id);
    expect(failed).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^job_failed: /) });
    expect(failed.logsTail).toContain("No module named 'echoloop_train'");
    expect(failed.checkpointId).toBeNull();
    expect(await defaultCheckpoint()).toBe(before);
  }, 600_000);

  let promoted: any;

  it('a restarted orchestrator picks up the running job; the candidate it serves wins its experiment and is promoted', async () => {
    await orchestrator.stop();
    // The sentient benchmark was played in the first refresh; this one is gated on the held-out prompts alone.
    const heldoutOnly = { GATE_PROFILES: '0' };
    orchestrator = await f.startOrchestrator(heldoutOnly);
    const { body: job } = await rl('POST', '/v1/rl/jobs', { hyperparameters: { maxSteps: 1, batchSize: 1 } });
    await waitFor(async () => (await rl('GET', `/v1/rl/jobs/${job.id}`)).body.externalId, {
      timeoutMs: 120_000,
      what: 'the job to be on Ray',
    });
    await orchestrator.stop();
    orchestrator = await f.startOrchestrator(heldoutOnly);
    promoted = await ended(job.id);
    expect(promoted).toMatchObject({ status: 'succeeded', gate: { passed: true } });
    const experiment = promoted.experimentId as string;
    expect((await gw('GET', `/v1/experiments/${experiment}`)).body.status).toBe('running');

    // Users prefer the candidate, clearly: the experiment promotes it by itself, and it stays served.
    await seedArmMetrics(experiment, { control: 0.4, candidate: 0.8 });
    const decided = await waitFor(
      async () => {
        const { body } = await gw('GET', `/v1/experiments/${experiment}`);
        return body.status === 'promoted' && body;
      },
      { timeoutMs: 30_000, what: 'the experiment to promote its candidate' },
    );
    expect(decided.promotedArmId).toBe('candidate');
    const audit = (await gw('GET', `/v1/experiments/${experiment}/audit`)).body.items;
    expect(audit.at(-1)).toMatchObject({ action: 'promoted', actorId: null });
    expect(await defaultCheckpoint()).toBe(promoted.checkpointId);
    expect(await served()).toContain(promoted.checkpointId);
  }, 900_000);

  it('the next refresh builds on the promoted checkpoint; a gate check that cannot run fails it and retires it', async () => {
    await orchestrator.stop();
    // Two held-out prompts cannot bound a difference that needs fifty: the check cannot run, so the gate fails.
    orchestrator = await f.startOrchestrator({ GATE_PROFILES: '0', GATE_MIN_ITEMS: '50' });
    const { body: job } = await rl('POST', '/v1/rl/jobs', { hyperparameters: { maxSteps: 1, batchSize: 1 } });
    const failed = await ended(job.id);

    // Its parent is the promoted checkpoint: its adapter trained further, on the data since its snapshot and a
    // replay of the older (all of it here: no pair is newer).
    const parentAdapter = promoted.output.serving.adapterPath as string;
    expect(failed.dataset.parent).toEqual({
      checkpointId: promoted.checkpointId,
      jobId: promoted.id,
      adapterPath: parentAdapter,
      cutoff: promoted.dataset.cutoff,
    });
    expect(failed.dataset.replay).toMatchObject({ fraction: 1, read: promoted.dataset.export.rows });
    expect(failed.output.parent).toEqual({
      adapter: parentAdapter,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(failed.output.baseModel.ggufSha256).toBe(promoted.output.baseModel.ggufSha256);

    expect(failed).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(
        /^gate_failed: heldout_reward could not run: \d items measured on both sides, at least 50 needed/,
      ),
    });
    expect(failed.gate).toMatchObject({ passed: false, notes: ['sentient off: GATE_PROFILES=0'] });
    const checkpoints = (await gw('GET', '/v1/checkpoints')).body.items as { id: string; status: string }[];
    expect(checkpoints).toContainEqual(
      expect.objectContaining({ id: failed.checkpointId, status: 'retired' }),
    );
    expect(await served()).not.toContain(failed.checkpointId);
    expect(await defaultCheckpoint()).toBe(promoted.checkpointId);
  }, 900_000);

  /**
   * A refresh on new users who all kept the worse reply, built on the promoted default with nothing replayed. Its
   * validation users kept the worse reply too, so training finds it generalised, and it stays within the trust
   * region (a candidate that repeats one sentence drifted about 0.2 nats per token at 8 steps here, within the
   * budget of 1): the gate's held-out measures are what stands between it and users. Resolves to the ended job.
   */
  let drillUsers: string[] = [];
  const badRefresh = async (kept: Kept) => {
    f.labeller.judge.setReply(warmthJudge);
    await orchestrator.stop();
    orchestrator = await f.startOrchestrator({
      GATE_PROFILES: '0',
      GATE_HELDOUT_ITEMS: '32',
      // More held-out users than usual (about 15 of 50), so one answer that happens to pass cannot hide the rest.
      RL_HELDOUT_FRACTION: '0.3',
      RL_REPLAY_FRACTION: '0',
      RL_LEARNING_RATE: LEARNING_RATE,
    });
    // The previous drill's users withdrew their consent: each drill trains on its own users only.
    await f.withdrawConsent(drillUsers);
    drillUsers = await f.seedPreferences(DRILL_USERS, kept);
    const { body: job } = await rl('POST', '/v1/rl/jobs', {
      hyperparameters: { maxSteps: DRILL_STEPS, batchSize: 2 },
    });
    const refused = await ended(job.id);
    expect(refused.dataset.parent.checkpointId).toBe(promoted.checkpointId);
    expect(refused.dataset.replay).toMatchObject({ fraction: 0, kept: 0 });
    expect(refused.output.metrics.selection).toMatchObject({ generalised: true });
    // With the gate's checks, so a candidate that got through shows what the gate saw.
    expect({ status: refused.status, reason: refused.reason, checks: refused.gate?.checks }).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^gate_failed: /),
    });
    // Refused: retired, unloaded, and the default is what it was.
    const checkpoints = (await gw('GET', '/v1/checkpoints')).body.items as { id: string; status: string }[];
    expect(checkpoints).toContainEqual(
      expect.objectContaining({ id: refused.checkpointId, status: 'retired' }),
    );
    expect(await served()).not.toContain(refused.checkpointId);
    expect(await defaultCheckpoint()).toBe(promoted.checkpointId);
    return refused;
  };
  const check = (job: any, name: string) =>
    (job.gate.checks as { name: string }[]).find((c) => c.name === name) as any;

  it('a candidate trained on reversed pairs (users kept the dismissive reply) is refused by the gate', async () => {
    const refused = await badRefresh('dismissive');
    // What it learnt shows wherever it shows (a colder reward, looping text, answers of another length): the gate
    // names each check it failed, and none of its metrics is better than the default's.
    expect(refused.gate.passed).toBe(false);
    expect(refused.gate.better).toBe(false);
    const failed = (refused.gate.checks as { name: string; status: string }[]).filter(
      (c) => c.status === 'failed',
    );
    expect(failed.length).toBeGreaterThan(0);
    expect(refused.gate.reasons).toHaveLength(failed.length);
    expect(refused.reason).toBe(`gate_failed: ${refused.gate.reasons.join('; ')}`);
  }, 900_000);

  it('a candidate that repeats one sentence is refused, with the repetition guard named', async () => {
    const refused = await badRefresh('looping');
    const repetition = ['repeated_sentences', 'repeated_ngrams'].map((name) => check(refused, name));
    // A failure prints both checks whole: what the gate measured, candidate against default.
    expect(repetition).toContainEqual(expect.objectContaining({ status: 'failed', significance: 'higher' }));
    expect(refused.gate.reasons).toContainEqual(
      expect.stringMatching(
        /^repeated_(sentences|ngrams) significantly worse: candidate 0\.\d+ vs default 0/,
      ),
    );
    expect(refused.reason).toMatch(/repeated_(sentences|ngrams) significantly worse/);
  }, 900_000);

  it('trl-grpo: replies sampled from the policy, rewarded by the labeller and by multi-turn simulated conversations, train an adapter that generalises and is gated like any candidate', async () => {
    // New users who kept the warm reply, and only them (the drills' users withdrew their consent, nothing older is
    // replayed), beside the 16 profiles' openers. The graded judge and the simulated user both answer warmth, so a
    // group's replies get different rewards.
    f.labeller.judge.setReply(warmthJudge);
    f.simulator.setReply(warmthSimulator);
    await f.withdrawConsent(drillUsers);
    await f.seedPreferences(GRPO_USERS);
    await orchestrator.stop();
    orchestrator = await f.startOrchestrator({
      GATE_PROFILES: '0',
      // Enough held-out items for an interval (2 all off by the same amount gave a zero-width one).
      GATE_HELDOUT_ITEMS: '8',
      GATE_MIN_ITEMS: '3',
      RL_LEARNING_RATE: GRPO_LEARNING_RATE,
      RL_REPLAY_FRACTION: '0',
    });
    const [{ now: before }] = (await f.labeller.db.query(`SELECT now() AS now`)) as [{ now: Date }];
    const { body: job } = await rl('POST', '/v1/rl/jobs', {
      template: 'trl-grpo',
      hyperparameters: {
        maxSteps: GRPO_STEPS,
        evalEvery: 2,
        batchSize: 2,
        numGenerations: 4,
        maxCompletionLength: 32,
        sentientTurns: SENTIENT_TURNS,
      },
    });
    // Rollouts, simulated conversations and a validation pass every other step on the CPU: about 9 minutes alone
    // on 2 cores, more beside the other suites.
    const done = await ended(job.id, 1_200_000);
    // Trained, and then either gated through or refused by the gate (below); anything else shows what training
    // measured and kept.
    if (done.status !== 'succeeded' && !String(done.reason).startsWith('gate_failed: '))
      throw new Error(
        `trl-grpo ended ${done.status} (${done.reason}): ${JSON.stringify({
          validation: done.metrics?.validation,
          selection: done.output?.metrics?.selection,
        })}`,
      );
    expect(done).toMatchObject({ template: 'trl-grpo', runner: 'ray' });
    // Prompts, not pairs: the verl export of the labelled turns, split by user.
    expect(done.dataset).toMatchObject({ kind: 'verl', parent: { checkpointId: promoted.checkpointId } });
    // Online: every step's rollouts were scored; the training pool's profiles' openers were answered and the
    // conversations played on with the eval-runner's simulated users (RLVER): the policy answered the user's next
    // message itself, and each reply was rewarded by the emotion its conversation ended on.
    expect(done.metrics.curve.length).toBeGreaterThan(0);
    for (const point of done.metrics.curve) {
      expect(point).toMatchObject({ reward: expect.any(Number), rewardStd: expect.any(Number) });
    }
    const sentient = done.metrics.curve.flatMap((p: { sentientReward: number | null }) =>
      p.sentientReward === null ? [] : [p.sentientReward],
    );
    expect(sentient.length).toBeGreaterThan(0);
    for (const value of sentient) expect(value).toBeGreaterThanOrEqual(0);
    const conversations = (await f.labeller.db.query(
      `SELECT jsonb_array_length(session->'trace') AS turns, end_reason FROM simulator_sessions WHERE created_at > $1`,
      [before],
    )) as { turns: number; end_reason: string | null }[];
    expect(conversations.length).toBeGreaterThanOrEqual(4);
    for (const c of conversations) expect(c).toEqual({ turns: SENTIENT_TURNS, end_reason: 'max_turns' });
    const profiles = readFileSync(path.join(ROOT, 'data/sentient/profiles.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() && JSON.parse(line).pool === 'train');
    expect(done.output.data).toEqual({
      trainPrompts: done.dataset.train.rows,
      profilePrompts: profiles.length,
      validationPrompts: done.dataset.validation.rows,
    });
    expect(done.output.hyperparameters).toMatchObject({ sentientTurns: SENTIENT_TURNS });
    // It learnt: the kept step's validation reward is above the parent's own (step 0), within the trust region.
    expect(done.metrics.validation[0]).toMatchObject({ step: 0, klToParent: 0 });
    const { selection } = done.output.metrics;
    expect(selection).toMatchObject({ generalised: true, maxKl: 1 });
    expect(selection.step).toBeGreaterThan(0);
    expect(selection.valReward).toBeGreaterThan(done.metrics.validation[0].valReward);
    expect(selection.klToParent).toBeLessThanOrEqual(1);
    // Built on the promoted checkpoint's adapter, gated like any candidate, served and put in an experiment.
    expect(done.output.parent).toEqual({
      adapter: promoted.output.serving.adapterPath,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    // The gate measures it against the default (greedy replies to held-out users' prompts) like any candidate.
    // Whether 8 steps of a 135M policy on CPU leave those replies no worse than the warm DPO default's depends on
    // the machine's arithmetic, so both of the gate's answers are the product working: not measured worse, it is
    // served and tried in an experiment; measured significantly worse, it is refused, retired and unloaded. Either
    // way the default stays until an experiment decides.
    expect(done.gate.checks.find((c: { name: string }) => c.name === 'heldout_reward')).toMatchObject({
      status: expect.stringMatching(/^(passed|failed)$/),
      items: expect.any(Number),
    });
    if (done.gate.passed) {
      expect(done.status).toBe('succeeded');
      expect(await served()).toContain(done.checkpointId);
      expect((await gw('GET', `/v1/experiments/${done.experimentId}`)).body).toMatchObject({
        status: 'running',
        arms: [
          expect.objectContaining({ checkpointId: promoted.checkpointId }),
          expect.objectContaining({ checkpointId: done.checkpointId }),
        ],
      });
    } else {
      expect(done).toMatchObject({ status: 'failed', experimentId: null });
      expect(done.reason).toBe(`gate_failed: ${done.gate.reasons.join('; ')}`);
      // Refused for what it measured, not for a check that could not run.
      expect(done.gate.reasons).toContainEqual(expect.stringMatching(/significantly (lower|worse)|beyond/));
      expect(done.gate.reasons).not.toContainEqual(expect.stringMatching(/could not run/));
      const checkpoints = (await gw('GET', '/v1/checkpoints')).body.items as { id: string; status: string }[];
      expect(checkpoints).toContainEqual(
        expect.objectContaining({ id: done.checkpointId, status: 'retired' }),
      );
      expect(await served()).not.toContain(done.checkpointId);
    }
    expect(await defaultCheckpoint()).toBe(promoted.checkpointId);
    // The service key reached the job as a file of the snapshot's folder, gone with it, never in the job's
    // environment (which Ray keeps in its control store; its dashboard only hides the values).
    const ray = await call(RAY_URL, 'GET', `/api/jobs/${done.externalId}`);
    expect(JSON.stringify(ray.body)).not.toContain(f.key);
    expect(Object.keys(ray.body.runtime_env.env_vars)).toEqual(
      expect.arrayContaining(['ECHOLOOP_LABELLER_KEY_FILE', 'ECHOLOOP_SIMULATOR_KEY_FILE']),
    );
    expect(Object.keys(ray.body.runtime_env.env_vars)).not.toContain('ECHOLOOP_LABELLER_KEY');
    expect(existsSync(done.dataset.dir)).toBe(false);
  }, 1_300_000);
});
