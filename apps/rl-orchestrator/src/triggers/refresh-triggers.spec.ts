import { waitFor } from '@echoloop/testing';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { RlJobsRepository } from '../jobs/rl-jobs.repository';
import { RefreshDriver } from '../pipeline/refresh-driver';
import { ORCHESTRATOR_ENV } from '../tokens';
import { NewDataCounter } from './new-data.counter';
import { RefreshTriggers } from './refresh-triggers';

const counts = { turns: 0, pairs: 0 };

const ENV = {
  RL_SCHEDULE: undefined as string | undefined,
  RL_THRESHOLD_TURNS: 100,
  RL_THRESHOLD_PAIRS: 10,
  RL_THRESHOLD_POLL_SECONDS: 3600,
  RL_TEMPLATE: 'trl-dpo',
  RL_RUNNER: 'ray',
};

async function setUp(env: Partial<typeof ENV> = {}) {
  const jobs = {
    active: jest.fn().mockResolvedValue(null),
    lastRequestedAt: jest.fn().mockResolvedValue(new Date('2026-11-24T00:00:00Z')),
    create: jest.fn().mockImplementation(async (job: object) => ({ id: 'job-1', status: 'queued', ...job })),
    recordDecision: jest.fn().mockResolvedValue({}),
  };
  const moduleRef = await Test.createTestingModule({
    providers: [
      RefreshTriggers,
      { provide: RlJobsRepository, useValue: jobs },
      { provide: RefreshDriver, useValue: { wake: jest.fn() } },
      {
        provide: NewDataCounter,
        useValue: { turns: async () => counts.turns, pairs: async () => counts.pairs },
      },
      { provide: ORCHESTRATOR_ENV, useValue: { ...ENV, ...env } },
      { provide: PinoLogger, useValue: { info: jest.fn(), warn: jest.fn() } },
    ],
  }).compile();
  return { triggers: moduleRef.get(RefreshTriggers), jobs };
}

describe('RefreshTriggers', () => {
  afterEach(() => {
    counts.turns = 0;
    counts.pairs = 0;
  });

  it('starts a refresh when new preference pairs reach the threshold, with the counts as its reason', async () => {
    counts.pairs = 12;
    counts.turns = 40;
    const { triggers, jobs } = await setUp();
    triggers.checkThresholds();
    await waitFor(() => jobs.recordDecision.mock.calls.length > 0);
    expect(jobs.create).toHaveBeenCalledWith(
      expect.objectContaining({ trigger: 'threshold', template: 'trl-dpo' }),
    );
    expect(jobs.recordDecision).toHaveBeenCalledWith(
      expect.objectContaining({
        trigger: 'threshold',
        decision: 'started',
        reason: '12 new preference pairs (threshold 10)',
        details: { since: '2026-11-24T00:00:00.000Z', turns: 40, pairs: 12 },
      }),
    );
  });

  it('below every threshold, or while a refresh runs, it starts nothing', async () => {
    counts.pairs = 9;
    counts.turns = 99;
    const { triggers, jobs } = await setUp();
    triggers.checkThresholds();
    await waitFor(() => jobs.lastRequestedAt.mock.calls.length > 0);
    jobs.active.mockResolvedValue({ id: 'running' });
    counts.pairs = 50;
    triggers.checkThresholds();
    await new Promise((resolve) => setImmediate(resolve));
    await triggers.onApplicationShutdown();
    expect(jobs.create).not.toHaveBeenCalled();
  });

  it('a refresh that cannot start because one runs is recorded as skipped, with the running job', async () => {
    const { triggers, jobs } = await setUp();
    jobs.create.mockResolvedValue(null);
    jobs.active.mockResolvedValue({ id: 'job-0', status: 'training' });
    const outcome = await triggers.request('schedule', { reason: 'schedule 0 3 * * *' });
    expect(outcome).toEqual({ started: false, active: { id: 'job-0', status: 'training' } });
    expect(jobs.recordDecision).toHaveBeenCalledWith(
      expect.objectContaining({
        trigger: 'schedule',
        decision: 'skipped',
        reason: 'refresh_running: job job-0 is training',
        jobId: 'job-0',
      }),
    );
  });

  it('the cron schedule fires a refresh', async () => {
    const { triggers, jobs } = await setUp({
      RL_SCHEDULE: '* * * * * *',
      RL_THRESHOLD_PAIRS: 0,
      RL_THRESHOLD_TURNS: 0,
    });
    triggers.onApplicationBootstrap();
    expect(triggers.nextScheduledAt()).toBeInstanceOf(Date);
    try {
      await waitFor(() => jobs.create.mock.calls.length > 0, { timeoutMs: 3_000 });
    } finally {
      await triggers.onApplicationShutdown();
    }
    expect(jobs.create).toHaveBeenCalledWith(expect.objectContaining({ trigger: 'schedule' }));
  });
});
