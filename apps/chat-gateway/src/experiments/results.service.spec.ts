import type { ExperimentArmMetricEntity, ExperimentEntity } from '@echoloop/persistence';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { GATEWAY_ENV } from '../env';
import { type ArmCovariateMoments, ExperimentsRepository } from './experiments.repository';
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

async function setUp(
  metrics: ExperimentArmMetricEntity[],
  running: ExperimentEntity | null = EXPERIMENT,
  env: Record<string, unknown> = {},
  covariates: ArmCovariateMoments[] = [],
) {
  const repository = {
    findRunning: jest.fn(async () => running),
    assignmentsByArm: jest.fn(async () => [
      { arm_id: 'control', users: 500 },
      { arm_id: 'lora', users: 500 },
    ]),
    armMetrics: jest.fn(async () => metrics),
    covariateMoments: jest.fn(async () => covariates),
    saveSequentialPValues: jest.fn(async () => undefined),
  };
  const experiments = {
    get: jest.fn(async () => running ?? EXPERIMENT),
    stop: jest.fn(async () => EXPERIMENT),
    promote: jest.fn(async () => EXPERIMENT),
    recommend: jest.fn(async () => undefined),
  };
  const logger = { warn: jest.fn(), info: jest.fn() };
  const module = await Test.createTestingModule({
    providers: [
      ResultsService,
      { provide: ExperimentsRepository, useValue: repository },
      { provide: ExperimentsService, useValue: experiments },
      {
        provide: GATEWAY_ENV,
        useValue: {
          EXPERIMENT_GUARDRAIL_CHECK_MS: 60_000,
          EXPERIMENT_DECISIONS: 'automatic',
          EXPERIMENT_PRIMARY_METRIC: 'composite',
          EXPERIMENT_DECISION_MIN_USERS: 100,
          ...env,
        },
      },
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

    await results.review();

    expect(repository.armMetrics).not.toHaveBeenCalled();
    expect(experiments.stop).not.toHaveBeenCalled();
  });

  it('leaves a running experiment whose guardrails hold', async () => {
    const { results, experiments } = await setUp([
      metric('control', 'ttft_ms', 1000, 200),
      metric('lora', 'ttft_ms', 1000, 200),
    ]);

    await results.review();

    expect(experiments.stop).not.toHaveBeenCalled();
  });

  it('stops the running experiment when a treatment is significantly worse on a guardrail', async () => {
    const { results, experiments, logger } = await setUp([
      metric('control', 'ttft_ms', 1000, 200),
      metric('lora', 'ttft_ms', 1000, 400),
    ]);

    await results.review();

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

    await expect(results.review()).resolves.toBeUndefined();
    expect(logger.warn).toHaveBeenCalledWith(
      { err: failure },
      'experiment review failed; the next one retries',
    );
  });

  describe('the primary metric decides', () => {
    it('promotes a treatment clearly better on it, saying why, once both arms have enough users', async () => {
      const { results, experiments } = await setUp([
        metric('control', 'composite', 400, 0.2),
        metric('lora', 'composite', 400, 4),
      ]);
      await results.review();
      expect(experiments.promote).toHaveBeenCalledWith(
        null,
        'e1',
        'lora',
        expect.stringMatching(
          /^composite higher on arm lora than control \(always-valid p .*400\+ users per arm\)$/,
        ),
      );
      expect(experiments.stop).not.toHaveBeenCalled();
    });

    it('stops a treatment clearly worse on it: the loser loses its users', async () => {
      const { results, experiments } = await setUp([
        metric('control', 'composite', 400, 4),
        metric('lora', 'composite', 400, 0.2),
      ]);
      await results.review();
      expect(experiments.stop).toHaveBeenCalledWith(
        null,
        'e1',
        expect.stringMatching(/^decision: composite lower on arm lora than control/),
      );
      expect(experiments.promote).not.toHaveBeenCalled();
    });

    it('waits while the test is not conclusive, or an arm has too few users', async () => {
      const even = await setUp([
        metric('control', 'composite', 400, 2),
        metric('lora', 'composite', 400, 2.1),
      ]);
      expect((await even.results.results('e1')).decision).toMatchObject({
        verdict: null,
        reason: expect.stringMatching(/^composite not conclusive yet/),
      });
      const few = await setUp([metric('control', 'composite', 40, 0.2), metric('lora', 'composite', 40, 9)]);
      expect((await few.results.results('e1')).decision).toMatchObject({
        verdict: null,
        reason: '40 of 100 users in the smaller arm',
      });
      await even.results.review();
      await few.results.review();
      for (const { experiments } of [even, few]) {
        expect(experiments.promote).not.toHaveBeenCalled();
        expect(experiments.stop).not.toHaveBeenCalled();
      }
    });

    it('counts the guardrails it also watches: conclusive alone, not once Holm corrects for the family', async () => {
      // Always-valid p 0.025 on its own (500 users an arm, variance 100, +2.2); two guardrails with no difference.
      const composite = [metric('control', 'composite', 500, 0), metric('lora', 'composite', 500, 2.2)];
      const alone = await setUp(composite);
      expect((await alone.results.results('e1')).decision.verdict).toBe('promote');
      const watched = await setUp([
        ...composite,
        ...['ttft_ms', 'safety_flagged'].flatMap((name) => [
          metric('control', name, 500, 5),
          metric('lora', name, 500, 5),
        ]),
      ]);
      const result = await watched.results.results('e1');
      const test = result.metrics.find((m) => m.metric === 'composite')?.comparisons[0]?.sequential;
      expect(test?.pValue).toBeLessThan(0.05);
      expect(test?.adjustedPValue).toBeCloseTo(3 * (test?.pValue ?? NaN), 12);
      expect(result.decision).toMatchObject({
        verdict: null,
        reason: expect.stringMatching(
          /^composite not conclusive yet \(always-valid p 0\.07\d+, Holm-adjusted\)$/,
        ),
      });
    });

    it('reports every comparison Holm-adjusted across metrics and arms, never below its own p-value', async () => {
      const { results } = await setUp([
        metric('control', 'composite', 500, 0),
        metric('lora', 'composite', 500, 2.2),
        metric('control', 'empathy', 500, 3),
        metric('lora', 'empathy', 500, 3.5),
      ]);
      const comparisons = (await results.results('e1')).metrics.flatMap((m) => m.comparisons);
      const reported = comparisons.filter((c) => c.welch);
      expect(reported).toHaveLength(2);
      const [a, b] = reported.map((c) => c.welch?.pValue ?? NaN).sort((x, y) => x - y);
      const byP = (p: number) => reported.find((c) => c.welch?.pValue === p)?.holmPValue;
      expect(byP(a ?? NaN)).toBeCloseTo(2 * (a ?? NaN), 12);
      expect(byP(b ?? NaN)).toBeCloseTo(Math.max(2 * (a ?? NaN), b ?? NaN), 12);
    });

    it('only recommends in recommend mode, and does nothing when off', async () => {
      const winning = [metric('control', 'composite', 400, 0.2), metric('lora', 'composite', 400, 4)];
      const recommend = await setUp(winning, EXPERIMENT, { EXPERIMENT_DECISIONS: 'recommend' });
      await recommend.results.review();
      expect(recommend.experiments.recommend).toHaveBeenCalledWith(
        'e1',
        expect.objectContaining({ verdict: 'promote', armId: 'lora', metric: 'composite' }),
      );
      expect(recommend.experiments.promote).not.toHaveBeenCalled();
      const off = await setUp(winning, EXPERIMENT, { EXPERIMENT_DECISIONS: 'off' });
      await off.results.review();
      expect(off.experiments.recommend).not.toHaveBeenCalled();
      expect(off.experiments.promote).not.toHaveBeenCalled();
    });

    it('lets a guardrail stop the experiment before any promotion', async () => {
      const { results, experiments } = await setUp([
        metric('control', 'composite', 1000, 0.2),
        metric('lora', 'composite', 1000, 4),
        metric('control', 'ttft_ms', 1000, 200),
        metric('lora', 'ttft_ms', 1000, 400),
      ]);
      await results.review();
      expect(experiments.stop).toHaveBeenCalledWith(null, 'e1', 'guardrail: ttft_ms worse on arm lora');
      expect(experiments.promote).not.toHaveBeenCalled();
    });

    it('takes no decision with more than one treatment arm', async () => {
      const three = {
        ...EXPERIMENT,
        arms: [...EXPERIMENT.arms, { id: 'other', checkpointId: 'lora-8', weight: 1, control: false }],
      } as unknown as ExperimentEntity;
      const { results, experiments } = await setUp(
        [metric('control', 'composite', 400, 0.2), metric('lora', 'composite', 400, 4)],
        three,
      );
      expect((await results.results('e1')).decision.verdict).toBeNull();
      await results.review();
      expect(experiments.promote).not.toHaveBeenCalled();
    });
  });

  describe('CUPED', () => {
    /** Moments of (x, y) pairs, as covariateMoments reads them. */
    const moments = (armId: string, pairs: [number, number][], withPrePeriod = pairs.length) => ({
      armId,
      metric: 'composite',
      withPrePeriod,
      n: pairs.length,
      sumX: pairs.reduce((t, [x]) => t + x, 0),
      sumY: pairs.reduce((t, [, y]) => t + y, 0),
      sumXX: pairs.reduce((t, [x]) => t + x * x, 0),
      sumYY: pairs.reduce((t, [, y]) => t + y * y, 0),
      sumXY: pairs.reduce((t, [x, y]) => t + x * y, 0),
    });
    // Each user's experiment value is their pre-period value plus a small wobble; treatment +0.1.
    const users = (lift: number) =>
      Array.from({ length: 200 }, (_, i): [number, number] => [i / 50, i / 50 + lift + ((i % 5) - 2) / 100]);
    const asArm = (armId: string, pairs: [number, number][]): ExperimentArmMetricEntity => ({
      experimentId: 'e1',
      armId,
      metric: 'composite',
      users: pairs.length,
      sum: pairs.reduce((t, [, y]) => t + y, 0),
      sumSquares: pairs.reduce((t, [, y]) => t + y * y, 0),
      turns: pairs.length,
    });

    it("takes the users' own level out: the lift the raw test misses is clear once adjusted, and decides", async () => {
      const [control, lora] = [users(0), users(0.1)];
      const { results } = await setUp([asArm('control', control), asArm('lora', lora)], EXPERIMENT, {}, [
        moments('control', control),
        moments('lora', lora),
      ]);
      const result = await results.results('e1');
      const comparison = result.metrics.find((m) => m.metric === 'composite')?.comparisons[0];
      expect(comparison?.welch?.pValue).toBeGreaterThan(0.05);
      expect(comparison?.cuped).toMatchObject({ theta: expect.closeTo(1, 2), usersWithPrePeriod: 200 });
      expect(comparison?.cuped?.difference).toBeCloseTo(0.1, 9);
      expect(comparison?.cuped?.pValue).toBeLessThan(1e-9);
      expect(comparison?.cuped?.varianceReduction).toBeGreaterThan(0.99);
      expect(result.decision.verdict).toBe('promote');
    });

    it("without any user's pre-period there is no adjustment", async () => {
      const [control, lora] = [users(0), users(0.1)];
      const { results } = await setUp([asArm('control', control), asArm('lora', lora)], EXPERIMENT, {}, [
        moments('control', control, 0),
        moments('lora', lora, 0),
      ]);
      const result = await results.results('e1');
      expect(result.metrics.find((m) => m.metric === 'composite')?.comparisons[0]?.cuped).toBeNull();
    });
  });
});
