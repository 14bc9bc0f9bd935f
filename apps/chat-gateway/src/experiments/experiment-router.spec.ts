import { assignArm } from '@echoloop/experiments';
import type { CheckpointEntity, ExperimentEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ExperimentRouter } from './experiment-router';
import { ExperimentsRepository } from './experiments.repository';

const DEFAULT = { id: 'default' } as CheckpointEntity;

function running(overrides: Partial<ExperimentEntity> = {}): ExperimentEntity {
  return {
    id: 'e1',
    status: 'running',
    seed: 'seed',
    arms: [
      { id: 'control', checkpointId: 'base', weight: 1, control: true },
      { id: 'lora', checkpointId: 'lora-7', weight: 1, control: false },
    ],
    audience: { trafficPercent: 100 },
    ...overrides,
  } as ExperimentEntity;
}

async function metricValue(metrics: MetricsService, name: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

async function setUp(experiment: ExperimentEntity | null) {
  const repository = {
    findRunning: jest.fn(async () => experiment),
    // As the statement does on a first exposure: records and returns the arm it was given.
    recordAssignment: jest.fn(
      async (_experimentId: string, _userId: string, armId: string): Promise<string | undefined> => armId,
    ),
  };
  const checkpoints = {
    defaultCheckpoint: jest.fn(async () => DEFAULT),
    cached: jest.fn(async (id: string) => ({ id }) as CheckpointEntity),
    servable: jest.fn(async (_checkpoint: CheckpointEntity) => true),
  };
  const module = await Test.createTestingModule({
    providers: [
      ExperimentRouter,
      { provide: ExperimentsRepository, useValue: repository },
      { provide: CheckpointsService, useValue: checkpoints },
      { provide: MetricsService, useValue: new MetricsService('test') },
    ],
  }).compile();
  return {
    router: module.get(ExperimentRouter),
    repository,
    checkpoints,
    metrics: module.get(MetricsService),
  };
}

describe('ExperimentRouter', () => {
  it('routes to the default checkpoint when no experiment runs, recording nothing', async () => {
    const { router, repository } = await setUp(null);

    await expect(router.route('u1')).resolves.toEqual({
      checkpoint: DEFAULT,
      experimentId: null,
      armId: null,
    });
    expect(repository.recordAssignment).not.toHaveBeenCalled();
  });

  it("records a new user's arm and routes to its checkpoint", async () => {
    const experiment = running();
    const { router, repository } = await setUp(experiment);
    const armId = assignArm('seed', 'u1', experiment.arms);
    const checkpointId = experiment.arms.find((a) => a.id === armId)?.checkpointId;

    await expect(router.route('u1')).resolves.toEqual({
      checkpoint: { id: checkpointId },
      experimentId: 'e1',
      armId,
    });
    expect(repository.recordAssignment).toHaveBeenCalledWith('e1', 'u1', armId);
  });

  it('sends an arm whose adapter no endpoint serves to the default, outside the experiment, and counts it', async () => {
    const experiment = running({ arms: [{ id: 'lora', checkpointId: 'lora-7', weight: 1, control: true }] });
    const { router, checkpoints, metrics } = await setUp(experiment);
    checkpoints.servable.mockImplementation(async (c: CheckpointEntity) => c.id !== 'lora-7');

    await expect(router.route('u1')).resolves.toEqual({
      checkpoint: DEFAULT,
      experimentId: null,
      armId: null,
    });
    expect(await metricValue(metrics, 'experiment_adapter_fallbacks_total')).toBe(1);
    // Served again: the arm answers.
    checkpoints.servable.mockResolvedValue(true);
    await expect(router.route('u1')).resolves.toMatchObject({ experimentId: 'e1', armId: 'lora' });
  });

  it('keeps the recorded arm over the one the current weights give', async () => {
    const { router, repository } = await setUp(running());
    const recorded = assignArm('seed', 'u1', running().arms) === 'lora' ? 'control' : 'lora';
    repository.recordAssignment.mockResolvedValue(recorded);

    await expect(router.route('u1')).resolves.toMatchObject({ armId: recorded });
  });

  it('falls back to the computed arm when no recorded arm comes back', async () => {
    const { router, repository } = await setUp(running());
    repository.recordAssignment.mockResolvedValue(undefined);

    await expect(router.route('u2')).resolves.toMatchObject({
      experimentId: 'e1',
      armId: assignArm('seed', 'u2', running().arms),
    });
  });

  it('caches the running experiment and each user’s arm', async () => {
    const { router, repository } = await setUp(running());

    const first = await router.route('u1');
    const again = await router.route('u1');
    await router.route('u2');

    expect(again).toEqual(first);
    expect(repository.findRunning).toHaveBeenCalledTimes(1);
    expect(repository.recordAssignment).toHaveBeenCalledTimes(2);
    expect(repository.recordAssignment.mock.calls.map((call) => call[1])).toEqual(['u1', 'u2']);
  });

  it('reads the running experiment again once invalidated', async () => {
    const { router, repository } = await setUp(running());

    await router.route('u1');
    router.invalidate();
    repository.findRunning.mockResolvedValue(null);

    await expect(router.route('u1')).resolves.toEqual({
      checkpoint: DEFAULT,
      experimentId: null,
      armId: null,
    });
    expect(repository.findRunning).toHaveBeenCalledTimes(2);
  });

  it('routes users outside the audience to the default, recording nothing', async () => {
    const { router, repository } = await setUp(running({ audience: { trafficPercent: 0 } }));

    await expect(router.route('u1')).resolves.toEqual({
      checkpoint: DEFAULT,
      experimentId: null,
      armId: null,
    });
    expect(repository.recordAssignment).not.toHaveBeenCalled();
  });

  it('routes to the default when the recorded arm is no longer in the experiment', async () => {
    const { router, repository } = await setUp(running());
    repository.recordAssignment.mockResolvedValue('removed');

    await expect(router.route('u1')).resolves.toEqual({
      checkpoint: DEFAULT,
      experimentId: null,
      armId: null,
    });
  });
});
