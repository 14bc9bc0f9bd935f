import { MetricsService } from '@echoloop/platform';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { ORCHESTRATOR_ENV } from '../tokens';
import {
  type AdapterCheckpoint,
  AdapterPlacementsRepository,
  type Placement,
  type PlacementWriter,
} from './adapter-placements.repository';
import { AdapterReconciler } from './adapter-reconciler';
import { EngineAdapters } from './engine-adapters';

/** The desired state as rows, and the placements a pass records, in memory. */
class InMemoryPlacements {
  checkpoints: AdapterCheckpoint[] = [];
  placements = new Map<string, Omit<Placement, 'observedAt'>>();
  busy = false;
  passes = 0;
  /** Resolves the pass in progress when set (a pass can be held open to test overlapping calls). */
  hold: Promise<void> | undefined;

  async exclusively<T>(pass: (writer: PlacementWriter) => Promise<T>): Promise<T | null> {
    if (this.busy) return null;
    this.passes += 1;
    await this.hold;
    return pass({
      adapterCheckpoints: async () => this.checkpoints.map((c) => ({ ...c })),
      record: async (p) => {
        this.placements.set(`${p.checkpointId}@${p.baseUrl}`, p);
      },
      keepOnly: async (kept) => {
        for (const key of this.placements.keys()) if (!kept.includes(key)) this.placements.delete(key);
      },
    });
  }

  state(checkpointId: string, baseUrl: string) {
    return this.placements.get(`${checkpointId}@${baseUrl}`)?.state;
  }
}

describe('AdapterReconciler', () => {
  let first: FakeVllm;
  let second: FakeVllm;
  let db: InMemoryPlacements;
  let reconciler: AdapterReconciler;
  let metrics: MetricsService;

  const adapter = (id: string, wanted = true, path = `/adapters/${id}`): AdapterCheckpoint => ({
    id,
    modelName: id,
    adapterPath: path,
    endpoints: [{ baseUrl: first.url }, { baseUrl: second.url }],
    wanted,
  });
  const served = (server: FakeVllm) => server.loadedAdapters.map((a) => a.name).sort();
  const metric = async (name: string, labels: Record<string, string>) =>
    (await metrics.registry.getSingleMetric(name)?.get())?.values.find((v) =>
      Object.entries(labels).every(([k, value]) => v.labels[k] === value),
    )?.value;

  beforeEach(async () => {
    first = await startFakeVllm({ model: 'base' });
    second = await startFakeVllm({ model: 'base' });
    db = new InMemoryPlacements();
    const module = await Test.createTestingModule({
      providers: [
        AdapterReconciler,
        EngineAdapters,
        { provide: AdapterPlacementsRepository, useValue: db },
        { provide: MetricsService, useValue: new MetricsService('test') },
        { provide: PinoLogger, useValue: { info: jest.fn(), warn: jest.fn(), logger: {} } },
        {
          provide: ORCHESTRATOR_ENV,
          useValue: {
            DATABASE_URL: 'postgres://unused',
            LLM_BASE_URL: first.url,
            CHECKPOINT_ALLOWED_HOSTS: [new URL(second.url).host],
            CHECKPOINT_API_KEY_ENVS: ['LLM_API_KEY'],
            // Passes are asked for by the tests, not by a timer or notifications.
            ADAPTER_RECONCILE: false,
            ADAPTER_RECONCILE_SECONDS: 15,
          },
        },
      ],
    }).compile();
    reconciler = module.get(AdapterReconciler);
    metrics = module.get(MetricsService);
  });

  afterEach(async () => {
    await reconciler.onApplicationShutdown();
    await Promise.all([first.close(), second.close()]);
  });

  it('loads every wanted adapter on every endpoint, records where, and changes nothing on the next pass', async () => {
    db.checkpoints = [adapter('rl-a'), adapter('rl-b')];
    await expect(reconciler.reconcile()).resolves.toBe('settled');
    for (const server of [first, second]) {
      expect(server.loadedAdapters).toEqual([
        { name: 'rl-a', path: '/adapters/rl-a' },
        { name: 'rl-b', path: '/adapters/rl-b' },
      ]);
      expect(db.state('rl-a', server.url)).toBe('loaded');
    }
    expect(await metric('adapters_desired', { endpoint: first.url })).toBe(2);
    expect(await metric('adapters_loaded', { endpoint: second.url })).toBe(2);
    // Each adapter generated one token right after its load, so no user pays for its first use.
    expect(first.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body)).toEqual([
      expect.objectContaining({ model: 'rl-a', max_tokens: 1 }),
      expect.objectContaining({ model: 'rl-b', max_tokens: 1 }),
    ]);
    const loads = first.requests.filter((r) => r.path === '/v1/load_lora_adapter').length;
    await expect(reconciler.reconcile()).resolves.toBe('settled');
    expect(first.requests.filter((r) => r.path === '/v1/load_lora_adapter')).toHaveLength(loads);
  });

  it('unloads our adapters that are no longer wanted and leaves anyone else’s alone', async () => {
    db.checkpoints = [adapter('rl-a'), adapter('rl-b')];
    await reconciler.reconcile();
    await fetch(`${first.url}/load_lora_adapter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lora_name: 'someone-elses', lora_path: '/elsewhere' }),
    });
    db.checkpoints = [adapter('rl-a'), adapter('rl-b', false)];
    await expect(reconciler.reconcile()).resolves.toBe('settled');
    expect(served(first)).toEqual(['rl-a', 'someone-elses']);
    expect(served(second)).toEqual(['rl-a']);
    expect(db.state('rl-b', first.url)).toBeUndefined();
    expect(await metric('adapter_reconcile_actions_total', { action: 'unload', outcome: 'ok' })).toBe(2);
  });

  it('loads the adapters again once a restarted endpoint answers (vLLM forgets runtime loads)', async () => {
    db.checkpoints = [adapter('rl-a')];
    await reconciler.reconcile();
    const port = Number(new URL(second.url).port);
    await second.close();
    await expect(reconciler.reconcile()).resolves.toBe('unsettled');
    expect(db.state('rl-a', second.url)).toBe('missing');
    expect(db.placements.get(`rl-a@${second.url}`)?.detail).toMatch(/^the endpoint is away/);
    // The other endpoint keeps serving it meanwhile.
    expect(db.state('rl-a', first.url)).toBe('loaded');

    second = await startFakeVllm({ model: 'base', port });
    expect(second.loadedAdapters).toEqual([]);
    await expect(reconciler.reconcile()).resolves.toBe('settled');
    expect(served(second)).toEqual(['rl-a']);
    expect(db.state('rl-a', second.url)).toBe('loaded');
  });

  it('never gives a served name other weights: a name held from another path is a failure, left as it is', async () => {
    db.checkpoints = [adapter('rl-a')];
    await reconciler.reconcile();
    db.checkpoints = [adapter('rl-a', true, '/adapters/other-weights')];
    await expect(reconciler.reconcile()).resolves.toBe('settled');
    expect(first.loadedAdapters).toEqual([{ name: 'rl-a', path: '/adapters/rl-a' }]);
    expect(db.placements.get(`rl-a@${first.url}`)).toMatchObject({
      state: 'failed',
      detail: 'the endpoint serves rl-a from /adapters/rl-a, not /adapters/other-weights',
    });
  });

  it('records a refused load with the endpoint’s own reason', async () => {
    const port = Number(new URL(first.url).port);
    await first.close();
    first = await startFakeVllm({ model: 'base', port, checkAdapterPaths: true });
    db.checkpoints = [{ ...adapter('rl-a', true, '/no/such/adapter'), endpoints: [{ baseUrl: first.url }] }];
    await reconciler.reconcile();
    expect(db.placements.get(`rl-a@${first.url}`)).toMatchObject({
      state: 'failed',
      detail: expect.stringMatching(/404 .*\/no\/such\/adapter/),
    });
    expect(await metric('adapter_reconcile_actions_total', { action: 'load', outcome: 'refused' })).toBe(1);
  });

  it('does nothing while another replica reconciles', async () => {
    db.checkpoints = [adapter('rl-a')];
    db.busy = true;
    await expect(reconciler.reconcile()).resolves.toBe('busy');
    expect(first.loadedAdapters).toEqual([]);
  });

  it('runs one pass at a time: calls during a pass share the one after it', async () => {
    db.checkpoints = [adapter('rl-a')];
    let release = () => {};
    db.hold = new Promise((resolve) => (release = resolve));
    const running = reconciler.reconcile();
    await new Promise((resolve) => setImmediate(resolve));
    const later = [reconciler.reconcile(), reconciler.reconcile(), reconciler.reconcile()];
    expect(later[1]).toBe(later[0]);
    release();
    db.hold = undefined;
    await Promise.all([running, ...later]);
    expect(db.passes).toBe(2);
  });
});
