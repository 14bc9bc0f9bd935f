import { CHECKPOINT_ENDPOINT_REFUSED } from '@echoloop/platform';
import type { CheckpointEntity, EvaluationEntity } from '@echoloop/persistence';
import { type EpisodeDeps, type EpisodeResult, runEpisode } from '@echoloop/sentient';
import { waitFor } from '@echoloop/testing';
import { NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { EntityNotFoundError } from 'typeorm';
import { SentientCatalog } from '../catalog';
import type { EpisodeStore } from '../sentient/evaluation';
import { actorAnswer, analyserAnswer, testProfile } from '../sentient/profile.spec-helper';
import { EVAL_RUNNER_ENV } from '../tokens';
import { EvaluationsRepository, type NewEvaluation } from './evaluations.repository';
import { EvaluationsService } from './evaluations.service';

// The models (policy, simulated user) answer from here, without a model server; the targets they were built for
// are recorded.
const mockEpisodeDeps = jest.fn();
jest.mock('../sentient/model-calls', () => ({
  episodeDeps: (...args: unknown[]) => mockEpisodeDeps(...args),
}));

function fakeModels(): EpisodeDeps & { policy: jest.Mock } {
  let turn = 0;
  return {
    policy: jest.fn(async () => `reply ${++turn}`),
    analyser: jest.fn(async () => analyserAnswer(10)),
    actor: jest.fn(async () => actorAnswer(`user ${turn}`)),
  };
}

const ENV = {
  SIMULATOR_BASE_URL: 'http://127.0.0.1:18000/v1',
  SIMULATOR_API_KEY: 'sim-key',
  SIMULATOR_MODEL: 'sim',
  JUDGE_BASE_URL: 'http://127.0.0.1:18001/v1',
  JUDGE_API_KEY: 'judge-key',
  JUDGE_MODEL: 'judge',
  LLM_BASE_URL: 'http://127.0.0.1:18000/v1',
  CHECKPOINT_ALLOWED_HOSTS: [] as string[],
  CHECKPOINT_API_KEY_ENVS: ['LLM_API_KEY'],
  EVAL_CONCURRENCY: 2,
  EVAL_MAX_TOKENS: 256,
};

const PROFILES = [
  testProfile('bench-a1', 'benchmark', 'deep-empathy'),
  testProfile('bench-a2', 'benchmark', 'deep-empathy'),
  testProfile('bench-b1', 'benchmark', 'practical-advice'),
  testProfile('train-a1', 'train', 'deep-empathy'),
];

/** A stored evaluation of checkpoint rl-1 over bench-a1, SAGE rules, with the given fields instead. */
const evaluationRow = (fields: Partial<NewEvaluation> = {}): NewEvaluation => ({
  checkpointId: 'rl-1',
  suite: 'sentient',
  profileIds: ['bench-a1'],
  policy: { baseUrl: 'http://127.0.0.1:18000/v1', model: 'adapter-1' },
  simulator: { baseUrl: 'http://127.0.0.1:18000/v1', model: 'sim' },
  mode: 'sage',
  judge: null,
  maxTurns: null,
  ...fields,
});

function checkpoint(overrides: Partial<CheckpointEntity> = {}): CheckpointEntity {
  return {
    id: 'rl-1',
    modelName: 'adapter-1',
    endpoints: [{ baseUrl: 'http://127.0.0.1:18000/v1' }],
    adapterPath: '/adapters/rl-1',
    decoding: {},
    contextTokens: 4096,
    status: 'candidate',
    isDefault: false,
    createdAt: new Date('2026-11-01T00:00:00Z'),
    updatedAt: new Date('2026-11-01T00:00:00Z'),
    ...overrides,
  };
}

/** Evaluations, their episodes and checkpoints in memory. */
class InMemoryEvaluations {
  evaluations = new Map<string, EvaluationEntity>();
  episodeRows = new Map<string, Map<string, EpisodeResult>>();
  checkpoints = new Map<string, CheckpointEntity>();
  private ids = 0;

  async unfinished() {
    return [...this.evaluations.values()].filter((e) => e.status === 'running');
  }

  async insert(values: NewEvaluation) {
    const evaluation: EvaluationEntity = {
      ...values,
      id: `e${++this.ids}`,
      status: 'running',
      metrics: null,
      error: null,
      createdAt: new Date(),
      finishedAt: null,
    };
    this.evaluations.set(evaluation.id, evaluation);
    return { ...evaluation };
  }

  list = jest.fn(async () => [...this.evaluations.values()]);

  async find(id: string) {
    return this.evaluations.get(id) ?? null;
  }

  async markFailed(id: string, error: string, finishedAt: Date) {
    Object.assign(this.evaluations.get(id)!, { status: 'failed', error, finishedAt });
  }

  async markFinished(id: string, metrics: object, finishedAt: Date) {
    Object.assign(this.evaluations.get(id)!, { status: 'finished', metrics, finishedAt });
  }

  episodes(evaluationId: string): EpisodeStore {
    const rows = this.episodeRows.get(evaluationId) ?? new Map<string, EpisodeResult>();
    this.episodeRows.set(evaluationId, rows);
    return {
      finished: async () => new Map(rows),
      save: async (episode) => {
        rows.set(episode.profileId, episode);
      },
    };
  }

  async findCheckpoint(id: string) {
    return this.checkpoints.get(id) ?? null;
  }

  async getCheckpoint(id: string) {
    const found = this.checkpoints.get(id);
    if (!found) throw new EntityNotFoundError('CheckpointEntity', { id });
    return found;
  }

  /** Resolves once the evaluation is no longer running. */
  ended(id: string) {
    return waitFor(() => this.evaluations.get(id)?.status !== 'running' && this.evaluations.get(id), {
      timeoutMs: 5_000,
      intervalMs: 5,
    });
  }
}

async function setUp(store = new InMemoryEvaluations()) {
  const models = fakeModels();
  mockEpisodeDeps.mockReset().mockReturnValue(() => models);
  const catalog = { profiles: PROFILES, card: { data: { name: 'Echo' } } };
  const moduleRef = await Test.createTestingModule({
    providers: [
      EvaluationsService,
      { provide: EvaluationsRepository, useValue: store },
      { provide: SentientCatalog, useValue: catalog },
      { provide: EVAL_RUNNER_ENV, useValue: ENV },
      { provide: PinoLogger, useValue: { error: jest.fn() } },
    ],
  }).compile();
  return { evaluations: moduleRef.get(EvaluationsService), store, models, logger: moduleRef.get(PinoLogger) };
}

const create = (overrides: object = {}) =>
  ({ checkpointId: 'rl-1', suite: 'sentient', mode: 'sage', pool: 'benchmark', ...overrides }) as const;

describe('EvaluationsService', () => {
  it('pins the checkpoint and the simulator, runs every profile in the background and stores the metrics', async () => {
    const { evaluations, store, models } = await setUp();
    store.checkpoints.set('rl-1', checkpoint());

    const created = await evaluations.create(create());

    expect(created).toMatchObject({
      checkpointId: 'rl-1',
      suite: 'sentient',
      mode: 'sage',
      status: 'running',
      profileIds: ['bench-a1', 'bench-b1', 'bench-a2'],
      policy: { baseUrl: 'http://127.0.0.1:18000/v1', model: 'adapter-1' },
      simulator: { baseUrl: 'http://127.0.0.1:18000/v1', model: 'sim' },
      judge: null,
    });
    const ended = await store.ended(created.id);
    expect(ended).toMatchObject({ status: 'finished', error: null, metrics: { count: 3 } });
    expect(ended.finishedAt).toBeInstanceOf(Date);
    expect([...store.episodeRows.get(created.id)!.keys()].sort()).toEqual([
      'bench-a1',
      'bench-a2',
      'bench-b1',
    ]);
    expect(models.policy).toHaveBeenCalled();
    const [policy, simulator, , judge] = mockEpisodeDeps.mock.calls[0]!;
    expect(policy).toEqual({
      baseUrl: 'http://127.0.0.1:18000/v1',
      apiKey: 'none',
      model: 'adapter-1',
      contextTokens: 4096,
      maxTokens: 256,
    });
    expect(simulator).toMatchObject({
      baseUrl: 'http://127.0.0.1:18000/v1',
      apiKey: 'sim-key',
      model: 'sim',
    });
    expect(judge).toBeUndefined();
  });

  it('caps every conversation at maxTurns policy turns when asked, and keeps the cap with the run', async () => {
    const { evaluations, store } = await setUp();
    store.checkpoints.set('rl-1', checkpoint());
    const turns = async (overrides: object) => {
      const created = await evaluations.create(create(overrides));
      await store.ended(created.id);
      const episodes = [...store.episodeRows.get(created.id)!.values()];
      return { row: store.evaluations.get(created.id)!, turns: episodes.map((e) => e.turns) };
    };

    const full = await turns({});
    const short = await turns({ maxTurns: 2 });

    expect(full.row.maxTurns).toBeNull();
    expect(Math.min(...full.turns)).toBeGreaterThan(2);
    expect(short.row.maxTurns).toBe(2);
    expect(short.turns).toEqual([2, 2, 2]);
  });

  it('pins the judge too for an EPM run, and chooses only the named profiles', async () => {
    const { evaluations, store } = await setUp();
    store.checkpoints.set('rl-1', checkpoint());
    mockEpisodeDeps.mockReturnValue(() => {
      throw new Error('no judge model here');
    });

    const created = await evaluations.create(create({ mode: 'epm', profiles: ['train-a1', 'bench-b1'] }));

    expect(created).toMatchObject({
      mode: 'epm',
      profileIds: ['bench-b1', 'train-a1'],
      judge: { baseUrl: 'http://127.0.0.1:18001/v1', model: 'judge' },
    });
    await store.ended(created.id);
    expect(mockEpisodeDeps.mock.calls[0]?.[3]).toMatchObject({
      baseUrl: 'http://127.0.0.1:18001/v1',
      model: 'judge',
      apiKey: 'judge-key',
      maxTokens: 1024,
    });
  });

  it.each([
    ['an unknown checkpoint', undefined],
    ['a retired checkpoint', checkpoint({ status: 'retired' })],
  ])('refuses %s with 422 invalid_checkpoint, creating nothing', async (_, stored) => {
    const { evaluations, store } = await setUp();
    if (stored) store.checkpoints.set('rl-1', stored);

    const attempt = evaluations.create(create());

    await expect(attempt).rejects.toThrow(UnprocessableEntityException);
    await expect(attempt).rejects.toMatchObject({ response: { error: { code: 'invalid_checkpoint' } } });
    expect(store.evaluations.size).toBe(0);
  });

  it('refuses a checkpoint whose endpoint host the configuration does not allow, calling no model', async () => {
    const { evaluations, store } = await setUp();
    store.checkpoints.set('rl-1', checkpoint({ endpoints: [{ baseUrl: 'http://10.0.0.9:8000/v1' }] }));

    await expect(evaluations.create(create())).rejects.toMatchObject({
      response: {
        error: {
          code: CHECKPOINT_ENDPOINT_REFUSED,
          details: [{ path: 'endpoints.0.baseUrl', message: expect.stringContaining('10.0.0.9:8000') }],
        },
      },
    });
    expect(store.evaluations.size).toBe(0);
    expect(mockEpisodeDeps).not.toHaveBeenCalled();
  });

  it('refuses unknown profiles with 422 unknown_profiles, naming them', async () => {
    const { evaluations, store } = await setUp();
    store.checkpoints.set('rl-1', checkpoint());

    await expect(
      evaluations.create(create({ profiles: ['bench-a1', 'ghost', 'nobody'] })),
    ).rejects.toMatchObject({
      response: { error: { code: 'unknown_profiles', message: 'Unknown profiles: ghost, nobody' } },
    });
    expect(store.evaluations.size).toBe(0);
  });

  it('resumes running evaluations at start, playing only the profiles not stored yet', async () => {
    const store = new InMemoryEvaluations();
    store.checkpoints.set('rl-1', checkpoint());
    const running = await store.insert(
      evaluationRow({
        profileIds: ['bench-a1', 'bench-b1'],
        simulator: { baseUrl: 'http://127.0.0.1:18000/v1', model: 'sim-pinned-earlier' },
      }),
    );
    const stored = await runEpisode(PROFILES[0]!, fakeModels());
    await store.episodes(running.id).save(stored);
    const done = await store.insert({ ...running, profileIds: ['bench-a2'] });
    await store.markFinished(done.id, { count: 1 }, new Date());
    const { evaluations, models } = await setUp(store);

    await evaluations.onApplicationBootstrap();

    expect(await store.ended(running.id)).toMatchObject({ status: 'finished', metrics: { count: 2 } });
    const episodes = store.episodeRows.get(running.id)!;
    expect([...episodes.keys()]).toEqual(['bench-a1', 'bench-b1']);
    expect(episodes.get('bench-a1')).toBe(stored);
    // One episode played (bench-b1), to its end at score 100: six policy turns.
    expect(episodes.get('bench-b1')).toMatchObject({ endReason: 'score_max', turns: 6 });
    expect(models.policy).toHaveBeenCalledTimes(6);
    expect(mockEpisodeDeps).toHaveBeenCalledTimes(1);
    // The simulator pinned when the evaluation was created, not today's configuration.
    expect(mockEpisodeDeps.mock.calls[0]?.[1]).toMatchObject({ model: 'sim-pinned-earlier' });
    expect(store.evaluations.get(done.id)?.metrics).toEqual({ count: 1 });
  });

  it('fails a resumed run whose checkpoint the configuration no longer allows, sending it nothing', async () => {
    const store = new InMemoryEvaluations();
    store.checkpoints.set('rl-1', checkpoint({ endpoints: [{ baseUrl: 'http://10.0.0.9:8000/v1' }] }));
    const running = await store.insert(
      evaluationRow({ policy: { baseUrl: 'http://10.0.0.9:8000/v1', model: 'adapter-1' } }),
    );
    const { evaluations, logger } = await setUp(store);

    await evaluations.onApplicationBootstrap();

    const ended = await store.ended(running.id);
    expect(ended).toMatchObject({ status: 'failed', error: expect.stringContaining('rl-1 is refused') });
    expect(ended.finishedAt).toBeInstanceOf(Date);
    expect(mockEpisodeDeps).not.toHaveBeenCalled();
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ evaluationId: running.id }),
      'evaluation failed',
    );
  });

  it('reports the finished episodes in catalog order, with the pinned models', async () => {
    const store = new InMemoryEvaluations();
    const { id } = await store.insert(
      evaluationRow({
        profileIds: ['bench-a1', 'bench-b1', 'bench-a2'],
        policy: { baseUrl: 'http://policy/v1', model: 'adapter-1' },
        simulator: { baseUrl: 'http://sim/v1', model: 'sim' },
        mode: 'epm',
        judge: { baseUrl: 'http://judge/v1', model: 'judge' },
      }),
    );
    const episodes = store.episodes(id);
    await episodes.save(await runEpisode(PROFILES[2]!, fakeModels()));
    await episodes.save(await runEpisode(PROFILES[0]!, fakeModels()));
    const { evaluations } = await setUp(store);

    const { report, html } = await evaluations.report(id);

    expect(report.title).toBe('Sentient benchmark (EPM): rl-1 (2/3 profiles)');
    expect(report.pinned).toEqual({
      policy: 'rl-1: adapter-1 @ http://policy/v1',
      simulator: 'sim @ http://sim/v1',
      judge: 'judge @ http://judge/v1',
    });
    expect(report.episodes.map((e) => e.profileId)).toEqual(['bench-a1', 'bench-b1']);
    expect(html).toContain('<html');
  });

  it('is a 404 for an unknown evaluation, on get and on report', async () => {
    const { evaluations } = await setUp();

    await expect(evaluations.get('ghost')).rejects.toThrow(NotFoundException);
    await expect(evaluations.report('ghost')).rejects.toMatchObject({
      response: { error: { code: 'not_found' } },
    });
  });

  it('lists evaluations with the number of their profiles, not the list', async () => {
    const { evaluations, store } = await setUp();
    await store.insert(evaluationRow({ profileIds: ['bench-a1', 'bench-b1'] }));

    const items = await evaluations.list({ limit: 10, status: 'running' });

    expect(store.list).toHaveBeenCalledWith({ limit: 10, status: 'running' });
    expect(items).toEqual([expect.objectContaining({ id: 'e1', profiles: 2 })]);
    expect(items[0]).not.toHaveProperty('profileIds');
  });
});
