import type { ExperimentArmMetricEntity, ExperimentEntity } from '@echoloop/persistence';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV } from '../env';
import { ExperimentsRepository } from './experiments.repository';
import { ExperimentsService } from './experiments.service';
import { ResultsService } from './results.service';

const EXPERIMENT = {
  id: 'e1',
  name: 'lora vs base',
  status: 'running',
  seed: 'seed',
  arms: [
    { id: 'control', checkpointId: 'base', weight: 1, control: true },
    { id: 'lora', checkpointId: 'lora-7', weight: 1, control: false },
  ],
  audience: { trafficPercent: 100 },
  sequentialPValues: {},
  createdAt: new Date('2026-01-01T00:00:00Z'),
} as unknown as ExperimentEntity;

/** Per-user means with the given mean and variance 100, over `users` users. */
function metric(armId: string, name: string, users: number, mean: number): ExperimentArmMetricEntity {
  return {
    experimentId: 'e1',
    armId,
    metric: name,
    users,
    sum: users * mean,
    sumSquares: users * (100 + mean * mean),
    turns: users * 3,
  };
}

async function setUp(metrics: ExperimentArmMetricEntity[], running: ExperimentEntity | null = EXPERIMENT) {
  const repository = {
    findRunning: jest.fn(async () => running),
    assignmentsByArm: jest.fn(async () => [
      { arm_id: 'control', users: 500 },
      { arm_id: 'lora', users: 500 },
    ]),
    armMetrics: jest.fn(async () => metrics),
    saveSequentialPValues: jest.fn(async () => undefined),
  };
  const experiments = { get: jest.fn(async () => EXPERIMENT), stop: jest.fn(async () => EXPERIMENT) };
  const logger = { warn: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      ResultsService,
      { provide: ExperimentsRepository, useValue: repository },
      { provide: ExperimentsService, useValue: experiments },
      { provide: GATEWAY_ENV, useValue: { EXPERIMENT_GUARDRAIL_CHECK_MS: 60_000 } },
      { provide: PinoLogger, useValue: logger },
    ],
  }).compile();
  return { results: module.get(ResultsService), repository, experiments, logger };
}

describe('ResultsService', () => {
  it('counts assigned users per arm and keeps the sequential p-values it computed', async () => {
    const { results, repository } = await setUp([
      metric('control', 'empathy', 500, 3),
      metric('lora', 'empathy', 500, 3.1),
    ]);

    const answer = await results.results('e1');

    expect(answer.arms.map((a) => [a.id, a.users])).toEqual([
      ['control', 500],
      ['lora', 500],
    ]);
    expect(answer.srm.alert).toBe(false);
    const empathy = answer.metrics.find((m) => m.metric === 'empathy');
    expect(empathy?.arms.map((a) => [a.armId, a.users, a.turns])).toEqual([
      ['control', 500, 1500],
      ['lora', 500, 1500],
    ]);
    expect(repository.saveSequentialPValues).toHaveBeenCalledTimes(1);
    const [id, saved] = repository.saveSequentialPValues.mock.calls[0] as unknown as [
      string,
      Record<string, number>,
    ];
    expect(id).toBe('e1');
    expect(Object.keys(saved)).toEqual(['empathy:lora']);
    expect(empathy?.comparisons[0]?.sequential?.pValue).toBe(saved['empathy:lora']);
  });

  it('does nothing when no experiment runs', async () => {
    const { results, experiments, repository } = await setUp([], null);

    await results.checkGuardrails();

    expect(repository.armMetrics).not.toHaveBeenCalled();
    expect(experiments.stop).not.toHaveBeenCalled();
  });

  it('leaves a running experiment whose guardrails hold', async () => {
    const { results, experiments } = await setUp([
      metric('control', 'ttft_ms', 1000, 200),
      metric('lora', 'ttft_ms', 1000, 200),
    ]);

    await results.checkGuardrails();

    expect(experiments.stop).not.toHaveBeenCalled();
  });

  it('stops the running experiment when a treatment is significantly worse on a guardrail', async () => {
    const { results, experiments, logger } = await setUp([
      metric('control', 'ttft_ms', 1000, 200),
      metric('lora', 'ttft_ms', 1000, 400),
    ]);

    await results.checkGuardrails();

    expect(experiments.stop).toHaveBeenCalledWith(null, 'e1', 'guardrail: ttft_ms worse on arm lora');
    expect(logger.warn).toHaveBeenCalledWith(
      expect.objectContaining({ experimentId: 'e1', metric: 'ttft_ms', armId: 'lora', breached: true }),
      'experiment stopped by a guardrail',
    );
  });

  it('logs a failed check instead of throwing', async () => {
    const { results, repository, logger } = await setUp([]);
    const failure = new Error('connection lost');
    repository.findRunning.mockRejectedValue(failure);

    await expect(results.checkGuardrails()).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalledWith(
      { err: failure },
      'guardrail check failed; the next one retries',
    );
  });
});
