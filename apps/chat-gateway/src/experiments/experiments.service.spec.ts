import type { CheckpointEntity, ExperimentArm, ExperimentEntity } from '@echoloop/persistence';
import {
  ConflictException,
  HttpException,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ExperimentRouter } from './experiment-router';
import type { CreateExperimentInput } from './experiment.schemas';
import {
  type ExperimentAuditInput,
  ExperimentsRepository,
  type ExperimentsTransaction,
  type NewExperiment,
} from './experiments.repository';
import { ExperimentsService } from './experiments.service';

const ARMS: ExperimentArm[] = [
  { id: 'control', checkpointId: 'base', weight: 1, control: true },
  { id: 'lora', checkpointId: 'lora-7', weight: 1, control: false },
];

function experiment(id: string, overrides: Partial<ExperimentEntity> = {}): ExperimentEntity {
  return {
    id,
    name: id,
    description: null,
    status: 'draft',
    seed: 'seed',
    arms: ARMS,
    audience: { trafficPercent: 100 },
    stopReason: null,
    sequentialPValues: {},
    promotedArmId: null,
    createdBy: 'alice',
    startedAt: null,
    endedAt: null,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-01T00:00:00Z'),
    ...overrides,
  };
}

/** Experiments in memory; a transaction's writes land only when its work succeeds (commit). */
class InMemoryExperiments {
  experiments = new Map<string, ExperimentEntity>();
  audit: ExperimentAuditInput[] = [];
  defaults: string[] = [];
  commits = 0;
  /** Makes setDefaultCheckpoint fail, as CheckpointsService does for a retired checkpoint. */
  setDefaultError: Error | undefined;

  constructor(...experiments: ExperimentEntity[]) {
    for (const e of experiments) this.experiments.set(e.id, e);
  }

  async transaction<T>(work: (tx: ExperimentsTransaction) => Promise<T>): Promise<T> {
    const pending = new Map<string, ExperimentEntity>();
    const writes: (() => void)[] = [];
    const read = (id: string) => pending.get(id) ?? this.experiments.get(id) ?? null;
    // A copy, as a row read from the database is: the caller's changes reach the store only through update.
    const copy = (e: ExperimentEntity | null) => e && { ...e, arms: e.arms.map((a) => ({ ...a })) };
    const result = await work({
      insert: async (values: NewExperiment) => {
        const saved = experiment(`e${this.experiments.size + pending.size + 1}`, values);
        pending.set(saved.id, saved);
        return saved;
      },
      lock: async (id) => copy(read(id)),
      find: async (id) => copy(read(id)),
      countWithStatus: async (status) =>
        [...this.experiments.values()].filter((e) => e.status === status).length,
      update: async (id, changes) => {
        pending.set(id, { ...read(id)!, ...changes });
      },
      setDefaultCheckpoint: async (checkpointId) => {
        if (this.setDefaultError) throw this.setDefaultError;
        writes.push(() => this.defaults.push(checkpointId));
      },
      audit: async (entry) => {
        writes.push(() => this.audit.push(entry));
      },
    });
    for (const [id, e] of pending) this.experiments.set(id, e);
    writes.forEach((write) => write());
    this.commits++;
    return result;
  }

  find = async (id: string) => this.experiments.get(id) ?? null;
  list = async () => [...this.experiments.values()];
  auditLog = async (id: string) => this.audit.filter((entry) => entry.experimentId === id);
}

const checkpoint = (id: string, status: CheckpointEntity['status']) => ({ id, status }) as CheckpointEntity;

async function setUp(store: InMemoryExperiments, checkpoints: CheckpointEntity[] = []) {
  const router = { invalidate: jest.fn() };
  const checkpointsService = {
    get: jest.fn(async (id: string) => {
      const found = checkpoints.find((c) => c.id === id);
      if (!found) throw new NotFoundException();
      return found;
    }),
  };
  const module = await Test.createTestingModule({
    providers: [
      ExperimentsService,
      { provide: ExperimentsRepository, useValue: store },
      { provide: CheckpointsService, useValue: checkpointsService },
      { provide: ExperimentRouter, useValue: router },
    ],
  }).compile();
  return { service: module.get(ExperimentsService), router };
}

async function errorOf(promise: Promise<unknown>): Promise<HttpException> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof HttpException)) throw new Error(`expected an HttpException, got ${String(error)}`);
  return error;
}

const codeOf = (error: HttpException) => (error.getResponse() as { error: { code: string } }).error.code;

describe('ExperimentsService', () => {
  describe('create', () => {
    const input: CreateExperimentInput = { name: 'lora vs base', arms: ARMS };

    it('creates a draft with the whole audience and a random seed, and audits it', async () => {
      const store = new InMemoryExperiments();
      const { service } = await setUp(store, [checkpoint('base', 'active'), checkpoint('lora-7', 'active')]);

      const created = await service.create('alice', input);

      expect(created).toMatchObject({
        name: 'lora vs base',
        description: null,
        arms: ARMS,
        audience: { trafficPercent: 100 },
        createdBy: 'alice',
      });
      expect(created.seed).toMatch(/^[0-9a-f]{16}$/);
      expect(store.experiments.get(created.id)).toBeDefined();
      expect(store.audit).toEqual([
        { experimentId: created.id, actorId: 'alice', action: 'created', details: { input } },
      ]);
    });

    it('keeps a given seed and audience', async () => {
      const store = new InMemoryExperiments();
      const { service } = await setUp(store, [checkpoint('base', 'active'), checkpoint('lora-7', 'active')]);

      const created = await service.create('alice', {
        ...input,
        seed: 'fixed',
        audience: { trafficPercent: 10 },
      });

      expect(created).toMatchObject({ seed: 'fixed', audience: { trafficPercent: 10 } });
    });

    it.each([
      ['missing', [checkpoint('base', 'active')]],
      ['retired', [checkpoint('base', 'active'), checkpoint('lora-7', 'retired')]],
    ])('refuses an arm whose checkpoint is %s, and writes nothing', async (_, checkpoints) => {
      const store = new InMemoryExperiments();
      const { service } = await setUp(store, checkpoints);

      const error = await errorOf(service.create('alice', input));

      expect(error).toBeInstanceOf(UnprocessableEntityException);
      expect(codeOf(error)).toBe('invalid_checkpoint');
      expect(store.commits).toBe(0);
      expect(store.experiments.size).toBe(0);
    });
  });

  describe('get', () => {
    it('answers 404 for an unknown experiment', async () => {
      const { service } = await setUp(new InMemoryExperiments());

      const error = await errorOf(service.get('nope'));

      expect(error).toBeInstanceOf(NotFoundException);
      expect(codeOf(error)).toBe('not_found');
    });

    it('returns a known experiment', async () => {
      const { service } = await setUp(new InMemoryExperiments(experiment('e1')));

      await expect(service.get('e1')).resolves.toMatchObject({ id: 'e1', status: 'draft' });
    });
  });

  describe('start', () => {
    it('starts a draft, audits it and forgets the cached running experiment', async () => {
      const store = new InMemoryExperiments(experiment('e1'));
      const { service, router } = await setUp(store);

      const started = await service.start('alice', 'e1');

      expect(started.status).toBe('running');
      expect(started.startedAt).toBeInstanceOf(Date);
      expect(store.experiments.get('e1')?.status).toBe('running');
      expect(store.audit).toEqual([
        {
          experimentId: 'e1',
          actorId: 'alice',
          action: 'started',
          details: { from: 'draft', to: 'running', startedAt: started.startedAt },
        },
      ]);
      expect(router.invalidate).toHaveBeenCalledTimes(1);
    });

    it('refuses while another experiment runs, and changes nothing', async () => {
      const store = new InMemoryExperiments(experiment('e1'), experiment('e2', { status: 'running' }));
      const { service, router } = await setUp(store);

      const error = await errorOf(service.start('alice', 'e1'));

      expect(error).toBeInstanceOf(ConflictException);
      expect(codeOf(error)).toBe('experiment_running');
      expect(store.experiments.get('e1')?.status).toBe('draft');
      expect(store.audit).toEqual([]);
      expect(router.invalidate).toHaveBeenCalledTimes(1);
    });

    it.each(['running', 'stopped', 'promoted'] as const)('refuses a %s experiment', async (status) => {
      const store = new InMemoryExperiments(experiment('e1', { status }));
      const { service } = await setUp(store);

      const error = await errorOf(service.start('alice', 'e1'));

      expect(error).toBeInstanceOf(ConflictException);
      expect(codeOf(error)).toBe('invalid_transition');
      expect(store.experiments.get('e1')?.status).toBe(status);
      expect(store.audit).toEqual([]);
    });

    it('answers 404 for an unknown experiment', async () => {
      const { service, router } = await setUp(new InMemoryExperiments());

      const error = await errorOf(service.start('alice', 'nope'));

      expect(error).toBeInstanceOf(NotFoundException);
      expect(codeOf(error)).toBe('not_found');
      expect(router.invalidate).toHaveBeenCalledTimes(1);
    });
  });

  describe('stop', () => {
    it('stops a running experiment with its reason; a guardrail acts as nobody', async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      const { service } = await setUp(store);

      const stopped = await service.stop(null, 'e1', 'guardrail: ttft_ms worse on arm lora');

      expect(stopped).toMatchObject({
        status: 'stopped',
        stopReason: 'guardrail: ttft_ms worse on arm lora',
      });
      expect(stopped.endedAt).toBeInstanceOf(Date);
      expect(store.audit).toEqual([
        expect.objectContaining({ experimentId: 'e1', actorId: null, action: 'stopped' }),
      ]);
    });

    it.each(['draft', 'stopped', 'promoted'] as const)('refuses a %s experiment', async (status) => {
      const store = new InMemoryExperiments(experiment('e1', { status }));
      const { service } = await setUp(store);

      const error = await errorOf(service.stop('alice', 'e1', 'enough'));

      expect(codeOf(error)).toBe('invalid_transition');
      expect(error.getStatus()).toBe(409);
      expect(store.experiments.get('e1')?.status).toBe(status);
    });
  });

  describe('decisions of the primary metric', () => {
    const decision = {
      metric: 'composite',
      armId: 'lora',
      verdict: 'promote' as const,
      reason: 'composite higher on arm lora than control',
    };

    it('promotes on its own, with no actor and the reason in the audit', async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      const { service } = await setUp(store);
      await service.promote(null, 'e1', 'lora', decision.reason);
      expect(store.defaults).toEqual(['lora-7']);
      expect(store.audit).toEqual([
        expect.objectContaining({
          actorId: null,
          action: 'promoted',
          details: expect.objectContaining({ armId: 'lora', reason: decision.reason }),
        }),
      ]);
    });

    it('records a recommendation once per verdict, and changes nothing else', async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      const { service } = await setUp(store);
      await service.recommend('e1', decision);
      await service.recommend('e1', decision);
      await service.recommend('e1', { ...decision, verdict: 'stop' });
      expect(store.audit.map((entry) => [entry.action, entry.actorId, entry.details['verdict']])).toEqual([
        ['recommended', null, 'promote'],
        ['recommended', null, 'stop'],
      ]);
      expect(store.experiments.get('e1')?.status).toBe('running');
      expect(store.defaults).toEqual([]);
    });
  });

  describe('promote', () => {
    it("makes the arm's checkpoint the default and ends a running experiment", async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      const { service } = await setUp(store);

      const promoted = await service.promote('alice', 'e1', 'lora');

      expect(promoted).toMatchObject({ status: 'promoted', promotedArmId: 'lora' });
      expect(promoted.endedAt).toBeInstanceOf(Date);
      expect(store.defaults).toEqual(['lora-7']);
      expect(store.audit).toEqual([
        {
          experimentId: 'e1',
          actorId: 'alice',
          action: 'promoted',
          details: {
            from: 'running',
            to: 'promoted',
            promotedArmId: 'lora',
            endedAt: promoted.endedAt,
            armId: 'lora',
            checkpointId: 'lora-7',
          },
        },
      ]);
    });

    it('keeps the end of a stopped experiment', async () => {
      const endedAt = new Date('2026-02-01T00:00:00Z');
      const store = new InMemoryExperiments(experiment('e1', { status: 'stopped', endedAt }));
      const { service } = await setUp(store);

      const promoted = await service.promote('alice', 'e1', 'control');

      expect(promoted.endedAt).toEqual(endedAt);
      expect(store.defaults).toEqual(['base']);
    });

    it('answers 404 for an unknown arm, and changes nothing', async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      const { service } = await setUp(store);

      const error = await errorOf(service.promote('alice', 'e1', 'nope'));

      expect(error).toBeInstanceOf(NotFoundException);
      expect(error.getResponse()).toEqual({ error: { code: 'not_found', message: 'No arm nope' } });
      expect(store.experiments.get('e1')?.status).toBe('running');
      expect(store.defaults).toEqual([]);
    });

    it('refuses a draft', async () => {
      const store = new InMemoryExperiments(experiment('e1'));
      const { service } = await setUp(store);

      const error = await errorOf(service.promote('alice', 'e1', 'lora'));

      expect(codeOf(error)).toBe('invalid_transition');
      expect(store.defaults).toEqual([]);
    });

    it('leaves the experiment as it was when the checkpoint cannot become the default', async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      store.setDefaultError = new ConflictException({ error: { code: 'checkpoint_retired', message: 'x' } });
      const { service, router } = await setUp(store);

      const error = await errorOf(service.promote('alice', 'e1', 'lora'));

      expect(codeOf(error)).toBe('checkpoint_retired');
      expect(store.experiments.get('e1')?.status).toBe('running');
      expect(store.audit).toEqual([]);
      expect(store.commits).toBe(0);
      expect(router.invalidate).toHaveBeenCalledTimes(1);
    });
  });

  describe('setWeights', () => {
    it('changes the named arms only, audits old and new, and forgets the cached experiment', async () => {
      const store = new InMemoryExperiments(experiment('e1', { status: 'running' }));
      const { service, router } = await setUp(store);

      const changed = await service.setWeights('alice', 'e1', { lora: 3 });

      const arms = [ARMS[0], { ...ARMS[1], weight: 3 }];
      expect(changed.arms).toEqual(arms);
      expect(store.experiments.get('e1')?.arms).toEqual(arms);
      expect(store.audit).toEqual([
        {
          experimentId: 'e1',
          actorId: 'alice',
          action: 'weights_changed',
          details: { from: ARMS, to: arms },
        },
      ]);
      expect(router.invalidate).toHaveBeenCalledTimes(1);
    });

    it('refuses an unknown arm, and changes nothing', async () => {
      const store = new InMemoryExperiments(experiment('e1'));
      const { service } = await setUp(store);

      const error = await errorOf(service.setWeights('alice', 'e1', { lora: 2, ghost: 1, other: 1 }));

      expect(error).toBeInstanceOf(UnprocessableEntityException);
      expect(error.getResponse()).toEqual({ error: { code: 'unknown_arm', message: 'No arm ghost, other' } });
      expect(store.experiments.get('e1')?.arms).toEqual(ARMS);
      expect(store.audit).toEqual([]);
    });

    it.each(['stopped', 'promoted'] as const)('refuses a %s experiment', async (status) => {
      const store = new InMemoryExperiments(experiment('e1', { status }));
      const { service } = await setUp(store);

      const error = await errorOf(service.setWeights('alice', 'e1', { lora: 2 }));

      expect(error).toBeInstanceOf(ConflictException);
      expect(codeOf(error)).toBe('experiment_ended');
      expect(store.experiments.get('e1')?.arms).toEqual(ARMS);
    });

    it('answers 404 for an unknown experiment', async () => {
      const { service } = await setUp(new InMemoryExperiments());

      const error = await errorOf(service.setWeights('alice', 'nope', { lora: 2 }));

      expect(codeOf(error)).toBe('not_found');
      expect(error.getStatus()).toBe(404);
    });
  });
});
