import { LabelledTurnsSource } from '@echoloop/datasets';
import { waitFor } from '@echoloop/testing';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { RlJobsRepository } from '../jobs/rl-jobs.repository';
import { RefreshDriver } from '../pipeline/refresh-driver';
import { ORCHESTRATOR_ENV } from '../tokens';
import { NewDataCounter } from './new-data.counter';
import { RefreshTriggers } from './refresh-triggers';

const KEY = 'k'.repeat(40);
const SINCE = new Date('2026-11-24T00:00:00Z');

const ENV = {
  NODE_ENV: 'test',
  EXPORT_PSEUDONYM_KEY: KEY as string | undefined,
  TRAINING_CONSENT_DEFAULT: false,
  RL_SCHEDULE: undefined,
  RL_THRESHOLD_TURNS: 100,
  RL_THRESHOLD_PAIRS: 0,
  RL_THRESHOLD_POLL_SECONDS: 3600,
  RL_TEMPLATE: 'trl-dpo',
  RL_RUNNER: 'ray',
};

/** The counter on a mocked repository, behind the triggers that read it (their threshold check). */
async function setUp(env: Partial<typeof ENV> = {}) {
  const labelled = {
    countTurns: jest.fn().mockResolvedValue(0),
    countRecords: jest.fn().mockResolvedValue(0),
  };
  const jobs = {
    active: jest.fn().mockResolvedValue(null),
    lastRequestedAt: jest.fn().mockResolvedValue(SINCE),
    create: jest.fn().mockImplementation(async (job: object) => ({ id: 'job-1', status: 'queued', ...job })),
    recordDecision: jest.fn().mockResolvedValue({}),
  };
  const moduleRef = await Test.createTestingModule({
    providers: [
      NewDataCounter,
      RefreshTriggers,
      { provide: LabelledTurnsSource, useValue: labelled },
      { provide: RlJobsRepository, useValue: jobs },
      { provide: RefreshDriver, useValue: { wake: jest.fn() } },
      { provide: ORCHESTRATOR_ENV, useValue: { ...ENV, ...env } },
      { provide: PinoLogger, useValue: { info: jest.fn(), warn: jest.fn() } },
    ],
  }).compile();
  return { counter: moduleRef.get(NewDataCounter), triggers: moduleRef.get(RefreshTriggers), labelled, jobs };
}

describe('NewDataCounter', () => {
  it('counts labelled turns replied since the moment, of every turn, by the consent default', async () => {
    const { counter, labelled } = await setUp();
    labelled.countTurns.mockResolvedValue(42);

    await expect(counter.turns(SINCE)).resolves.toBe(42);
    expect(labelled.countTurns).toHaveBeenCalledWith({
      filters: { from: '2026-11-24T00:00:00.000Z' },
      consentDefault: false,
      pairsOnly: false,
      byMessage: false,
    });
  });

  it('counts everything when no refresh was ever asked for', async () => {
    const { counter, labelled } = await setUp({ TRAINING_CONSENT_DEFAULT: true });

    await counter.turns(null);
    await counter.pairs(null);

    expect(labelled.countTurns).toHaveBeenCalledWith(
      expect.objectContaining({ filters: {}, consentDefault: true }),
    );
    expect(labelled.countRecords).toHaveBeenCalledWith(expect.objectContaining({ filters: {} }));
  });

  it('counts preference pairs by the export rules, with the pseudonym key the export uses', async () => {
    const { counter, labelled } = await setUp();
    labelled.countRecords.mockResolvedValue(7);

    await expect(counter.pairs(SINCE)).resolves.toBe(7);
    expect(labelled.countRecords).toHaveBeenCalledWith({
      kind: 'preferences',
      filters: { from: '2026-11-24T00:00:00.000Z' },
      consentDefault: false,
      privacy: { pseudonymKey: KEY },
    });
  });

  it('refuses to count pairs in production without a pseudonym key, reading nothing', async () => {
    const { counter, labelled } = await setUp({ NODE_ENV: 'production', EXPORT_PSEUDONYM_KEY: undefined });

    expect(() => counter.pairs(SINCE)).toThrow('EXPORT_PSEUDONYM_KEY is required in production');
    expect(labelled.countRecords).not.toHaveBeenCalled();
  });

  it('a turns threshold met since the last refresh starts one; pairs are not counted without a pairs threshold', async () => {
    const { triggers, labelled, jobs } = await setUp();
    labelled.countTurns.mockResolvedValue(100);

    triggers.checkThresholds();
    await waitFor(() => jobs.recordDecision.mock.calls.length > 0, { intervalMs: 5 });

    expect(labelled.countTurns).toHaveBeenCalledWith(
      expect.objectContaining({ filters: { from: '2026-11-24T00:00:00.000Z' } }),
    );
    expect(labelled.countRecords).not.toHaveBeenCalled();
    expect(jobs.recordDecision).toHaveBeenCalledWith(
      expect.objectContaining({
        trigger: 'threshold',
        decision: 'started',
        reason: '100 new labelled turns (threshold 100)',
        details: { since: '2026-11-24T00:00:00.000Z', turns: 100, pairs: null },
      }),
    );
  });

  it('one turn below the threshold starts nothing', async () => {
    const { triggers, labelled, jobs } = await setUp();
    labelled.countTurns.mockResolvedValue(99);

    triggers.checkThresholds();
    await triggers.onApplicationShutdown();

    expect(labelled.countTurns).toHaveBeenCalled();
    expect(jobs.create).not.toHaveBeenCalled();
  });
});
