import { RL_JOB_ACTIVE_STATUSES, RL_JOB_STATUSES, type RlJobStatus } from '@echoloop/vocabulary';
import { ModelError } from '@echoloop/llm';
import { rlJobStatusV1, rlJobStatusV2 } from '@echoloop/contracts';
import { type RlJobEntity } from '@echoloop/persistence';
import { CLOCK, MetricsService, ServiceCallError } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import type { OrchestratorEnv } from '../env';
import { type JobPatch, RlJobsRepository } from '../jobs/rl-jobs.repository';
import { ORCHESTRATOR_ENV } from '../tokens';
import { JobFailure } from '../jobs/job-failure';
import { RefreshDriver } from './refresh-driver';
import { RefreshStages, type Serving } from './refresh-stages';

const NOW = new Date('2026-11-25T01:00:00Z');
const isActive = (status: RlJobStatus) => (RL_JOB_ACTIVE_STATUSES as readonly string[]).includes(status);

/** Jobs in memory with the repository's rules: end states are final, transitions are recorded in order. */
class InMemoryJobs {
  job: RlJobEntity;
  statuses: RlJobStatus[] = [];

  constructor() {
    this.job = {
      id: '6f1c1b4e-8f55-4f0e-9d6a-1d7c0b0e2a11',
      lane: 'default',
      status: 'queued',
      trigger: 'manual',
      template: 'trl-dpo',
      runner: 'local',
      hyperparameters: {},
      requestedBy: null,
      externalId: null,
      dataset: null,
      metrics: null,
      output: null,
      checkpointId: null,
      gate: null,
      experimentId: null,
      logsTail: null,
      reason: null,
      cancelRequested: false,
      leaseOwner: null,
      leaseExpiresAt: null,
      createdAt: NOW,
      updatedAt: NOW,
      finishedAt: null,
    };
  }

  claim = async () => (isActive(this.job.status) ? structuredClone(this.job) : null);
  update = async (_id: string, patch: JobPatch) => {
    Object.assign(this.job, patch);
  };
  transition = async (_id: string, status: RlJobStatus, patch: JobPatch = {}) => {
    if (!isActive(this.job.status)) return null;
    Object.assign(this.job, patch, { status, updatedAt: NOW });
    this.statuses.push(status);
    return structuredClone(this.job);
  };
}

const SERVING: Serving = {
  adapterName: 'rl-20261125-6f1c1b4e',
  adapterPath: '/rl/jobs/x/adapter',
  endpoints: [{ baseUrl: 'http://127.0.0.1:18000/v1' }],
  defaultCheckpointId: 'base',
};
const PASSED = { passed: true, reasons: [], notes: [], sentient: null, heldout: null };

function fakeStages() {
  return {
    snapshot: jest.fn().mockResolvedValue({
      ok: true,
      snapshot: { id: 'ds', kind: 'preferences', dir: '/rl/snap', train: { rows: 20 }, heldout: { rows: 4 } },
    }),
    submit: jest.fn().mockResolvedValue('local-1'),
    poll: jest
      .fn()
      .mockResolvedValueOnce({
        done: false,
        metrics: { curve: [{ step: 1, loss: 0.69 }] },
        logsTail: 'step 1',
      })
      .mockResolvedValue({
        done: true,
        metrics: { finalLoss: 0.5 },
        logsTail: 'done',
        output: { adapters: [{ format: 'peft', path: '/rl/jobs/x/adapter' }] },
      }),
    stop: jest.fn().mockResolvedValue(true),
    producesAdapter: jest.fn().mockReturnValue(true),
    serve: jest.fn().mockResolvedValue({ checkpointId: SERVING.adapterName, serving: SERVING }),
    gate: jest.fn().mockResolvedValue(PASSED),
    experiment: jest
      .fn()
      .mockResolvedValue({ experimentId: '0b5e6d39-9f8a-4d43-8f6c-0f1a4b3c2d10', note: null }),
    retire: jest.fn().mockResolvedValue(undefined),
    discardSnapshot: jest.fn().mockResolvedValue(undefined),
  };
}

async function setUp(stages = fakeStages(), env: Partial<OrchestratorEnv> = {}) {
  const jobs = new InMemoryJobs();
  const moduleRef = await Test.createTestingModule({
    providers: [
      RefreshDriver,
      { provide: RlJobsRepository, useValue: jobs },
      { provide: RefreshStages, useValue: stages },
      {
        provide: ORCHESTRATOR_ENV,
        useValue: {
          RL_JOB_POLL_SECONDS: 3600,
          RL_RETRY_SECONDS: 60,
          RL_DRIVE_JOBS: true,
          EXPERIMENT_ON_PASS: true,
          ...env,
        },
      },
      { provide: CLOCK, useValue: () => NOW },
      { provide: PinoLogger, useValue: { info: jest.fn(), warn: jest.fn(), error: jest.fn() } },
      { provide: MetricsService, useValue: new MetricsService('rl-orchestrator') },
    ],
  }).compile();
  const driver = moduleRef.get(RefreshDriver);
  /** Rounds until the job ends (or `max` rounds). */
  const drive = async (max = 20) => {
    for (let i = 0; i < max && isActive(jobs.job.status); i += 1) {
      await driver.wake();
    }
  };
  return { jobs, stages, drive };
}

describe('RefreshDriver', () => {
  it('drives a refresh through every stage to an experiment', async () => {
    const { jobs, stages, drive } = await setUp();
    await drive();
    expect(jobs.statuses).toEqual([
      'snapshotting',
      'training',
      'loading',
      'gating',
      'experimenting',
      'succeeded',
    ]);
    expect(jobs.job).toMatchObject({
      checkpointId: SERVING.adapterName,
      experimentId: '0b5e6d39-9f8a-4d43-8f6c-0f1a4b3c2d10',
      metrics: { finalLoss: 0.5 },
      reason: null,
    });
    expect(stages.retire).not.toHaveBeenCalled();
    expect(stages.discardSnapshot).toHaveBeenCalledTimes(1);
  });

  it('skips with the reason when the snapshot is too small, and runs no job', async () => {
    const stages = fakeStages();
    stages.snapshot.mockResolvedValue({
      ok: false,
      reason: 'too_little_data: 3 training pairs, at least 8 needed',
      details: { train: 3 },
    });
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job.status).toBe('skipped');
    expect(jobs.job.reason).toMatch(/too_little_data/);
    expect(stages.submit).not.toHaveBeenCalled();
  });

  it('a failed job fails the refresh with its reason and serves nothing', async () => {
    const stages = fakeStages();
    stages.poll
      .mockReset()
      .mockRejectedValue(new JobFailure('job_failed', 'exited with code 1', 'base model missing: /x.gguf'));
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job).toMatchObject({
      status: 'failed',
      reason: 'job_failed: exited with code 1',
      logsTail: 'base model missing: /x.gguf',
    });
    expect(stages.serve).not.toHaveBeenCalled();
  });

  it('a training that did not generalise ends skipped with its curve and why, and serves nothing', async () => {
    const stages = fakeStages();
    const reason = 'no validation gain: the best point (step 4) has accuracy 0.500 and margin -0.010';
    stages.poll.mockReset().mockResolvedValue({
      done: true,
      metrics: { validation: [{ step: 4, valAccuracy: 0.5 }] },
      logsTail: 'done',
      output: { adapters: [], metrics: { selection: { generalised: false, reason, klToParent: 0.1 } } },
    });
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job).toMatchObject({
      status: 'skipped',
      reason: `not_generalised: ${reason}`,
      metrics: { validation: [{ step: 4, valAccuracy: 0.5 }] },
      output: { adapters: [] },
    });
    expect(stages.serve).not.toHaveBeenCalled();
    expect(stages.discardSnapshot).toHaveBeenCalledTimes(1);
  });

  it('a template that only renders a config ends rendered, not succeeded, and serves nothing', async () => {
    const stages = fakeStages();
    stages.producesAdapter.mockReturnValue(false);
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.statuses).toEqual(['snapshotting', 'training', 'loading', 'rendered']);
    expect(jobs.job.reason).toMatch(/^rendered: /);
    expect(stages.serve).not.toHaveBeenCalled();
    expect(stages.gate).not.toHaveBeenCalled();
  });

  it('an adapter that fails to load fails the refresh and takes the candidate down', async () => {
    const stages = fakeStages();
    stages.serve.mockRejectedValue(new JobFailure('load_failed', 'loading into http://x/v1 failed: 400 bad'));
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^load_failed: /) });
    expect(stages.retire).toHaveBeenCalled();
    expect(stages.gate).not.toHaveBeenCalled();
  });

  it('a failed gate retires the candidate, keeps the numbers and opens no experiment', async () => {
    const stages = fakeStages();
    stages.gate.mockResolvedValue({ ...PASSED, passed: false, reasons: ['held-out reward down 0.3'] });
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job).toMatchObject({
      status: 'failed',
      reason: 'gate_failed: held-out reward down 0.3',
      gate: { passed: false },
    });
    expect(stages.retire).toHaveBeenCalledTimes(1);
    expect(stages.experiment).not.toHaveBeenCalled();
  });

  it('a cancel during training stops the runner job, then ends as cancelled', async () => {
    const stages = fakeStages();
    stages.stop.mockResolvedValueOnce(false).mockResolvedValue(true);
    const { jobs, drive } = await setUp(stages);
    await drive(3); // queued → snapshotting → training, then submitted
    expect(jobs.job.externalId).toBe('local-1');
    jobs.job.cancelRequested = true;
    await drive();
    expect(stages.stop).toHaveBeenCalledTimes(2); // the first look found it still stopping
    expect(jobs.job).toMatchObject({ status: 'cancelled', reason: 'cancelled: by request, job stopped' });
    expect(stages.serve).not.toHaveBeenCalled();
  });

  it('a service away for a while is retried at the same stage, not failed', async () => {
    const stages = fakeStages();
    stages.gate
      .mockRejectedValueOnce(new ServiceCallError('eval-runner', 503, 'unavailable'))
      .mockRejectedValueOnce(new ServiceCallError('eval-runner', null, 'unreachable'))
      // A model endpoint that went quiet under load (the gate's greedy replies): tried again too.
      .mockRejectedValueOnce(new ModelError('model_timeout', 'stream idle for 60000 ms', true))
      .mockResolvedValue(PASSED);
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job.status).toBe('succeeded');
    expect(stages.gate).toHaveBeenCalledTimes(4);
  });

  it('a service away for longer than the retry window fails the job with a timeout', async () => {
    const stages = fakeStages();
    stages.gate.mockRejectedValue(new ServiceCallError('eval-runner', 503, 'unavailable'));
    const { jobs, drive } = await setUp(stages);
    await drive(7); // into gating; the gate keeps failing
    expect(jobs.job.status).toBe('gating');
    jobs.job.updatedAt = new Date('2026-11-25T00:58:00Z'); // entered gating 2 minutes before the clock
    await drive();
    expect(jobs.job).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^gating_timeout: /) });
    expect(stages.retire).toHaveBeenCalled();
  });

  it('a refused experiment start keeps the job successful and says the experiment waits as a draft', async () => {
    const stages = fakeStages();
    stages.experiment.mockResolvedValue({ experimentId: 'e', note: 'experiment_not_started: 409 running' });
    const { jobs, drive } = await setUp(stages);
    await drive();
    expect(jobs.job).toMatchObject({ status: 'succeeded', reason: 'experiment_not_started: 409 running' });
  });
});

describe('rl.job.status', () => {
  it('v2 carries exactly the statuses a job row can have; v1 all but rendered, which it reads as succeeded', () => {
    const statuses = (contract: typeof rlJobStatusV1 | typeof rlJobStatusV2) =>
      [...contract.schema.shape.payload.shape.status.options].sort();
    expect(statuses(rlJobStatusV2)).toEqual([...RL_JOB_STATUSES].sort());
    expect(statuses(rlJobStatusV1)).toEqual(RL_JOB_STATUSES.filter((s) => s !== 'rendered').sort());
  });
});
