import { CACHE_CHANGES_CHANNEL } from '@echoloop/persistence';
import {
  Backoff,
  CheckpointEndpointRefusedError,
  checkpointEndpointPolicy,
  checkpointModelEndpoints,
  MetricsService,
  PgListener,
} from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';
import {
  type AdapterCheckpoint,
  AdapterPlacementsRepository,
  type PlacementWriter,
} from './adapter-placements.repository';
import { EngineAdapters, type EngineTarget, loadOutcome } from './engine-adapters';

/**
 * One pass's result: `busy` when another replica is reconciling; `unsettled` when a wanted adapter is missing (its
 * endpoint away) or an unload failed, so another pass comes soon; `settled` otherwise (a refused load stays refused
 * until the next periodic pass).
 */
export type ReconcileOutcome = 'settled' | 'unsettled' | 'busy';

const FAST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 5_000;

/**
 * Keeps every serving endpoint's LoRA adapters equal to the desired state in PostgreSQL (the default, the arms of a
 * running experiment, a candidate under its gate): loads what is missing, unloads what is no longer wanted, never
 * gives a name other weights. One pass at a time, one replica at a time (an advisory lock); a pass runs at start,
 * on every checkpoint or experiment change (LISTEN/NOTIFY), every ADAPTER_RECONCILE_SECONDS, and every few seconds
 * while an adapter is missing, so an endpoint that restarted (vLLM forgets runtime-loaded adapters) is served again as
 * soon as it answers.
 */
@Injectable()
export class AdapterReconciler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly policy;
  private readonly listener: PgListener;
  private current: Promise<ReconcileOutcome> | undefined;
  private queued: Promise<ReconcileOutcome> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly retries: Backoff;
  private stopped = false;
  private readonly desired;
  private readonly loaded;
  private readonly actions;
  private readonly passes;

  constructor(
    private readonly placements: AdapterPlacementsRepository,
    private readonly engine: EngineAdapters,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.policy = checkpointEndpointPolicy(env);
    this.retries = new Backoff({
      initialMs: FAST_RETRY_MS,
      maxMs: Math.min(MAX_RETRY_MS, env.ADAPTER_RECONCILE_SECONDS * 1_000),
    });
    this.listener = new PgListener({
      connectionString: env.DATABASE_URL,
      channel: CACHE_CHANGES_CHANNEL,
      applicationName: 'rl-orchestrator-adapters',
      onNotification: (payload) => {
        if (/^(checkpoint|experiment):/.test(payload)) void this.reconcile();
      },
      onListening: () => void this.reconcile(),
      logger: logger.logger,
    });
    this.desired = metrics.gauge('adapters_desired', 'LoRA adapters that must be served, per endpoint', [
      'endpoint',
    ]);
    this.loaded = metrics.gauge('adapters_loaded', 'Wanted LoRA adapters an endpoint serves now', [
      'endpoint',
    ]);
    this.actions = metrics.counter(
      'adapter_reconcile_actions_total',
      'Adapter loads and unloads by the reconciler (outcome: ok, away, refused)',
      ['action', 'outcome'],
    );
    this.passes = metrics.counter(
      'adapter_reconcile_passes_total',
      'Reconcile passes (settled, unsettled: something wanted is not loaded, busy: another replica, failed)',
      ['outcome'],
    );
  }

  onApplicationBootstrap(): void {
    if (!this.env.ADAPTER_RECONCILE) return;
    this.listener.start();
    this.schedule(this.env.ADAPTER_RECONCILE_SECONDS * 1_000);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.listener.stop();
    await Promise.allSettled([this.current, this.queued]);
  }

  /**
   * A pass that starts after this call (one already running finishes first; calls meanwhile share the next one).
   * Never throws: a failed pass is logged, counted and tried again soon.
   */
  reconcile(): Promise<ReconcileOutcome> {
    this.queued ??= (this.current ?? Promise.resolve()).then(() => {
      this.queued = undefined;
      const pass = this.pass();
      this.current = pass;
      return pass.finally(() => {
        if (this.current === pass) this.current = undefined;
      });
    });
    return this.queued;
  }

  private schedule(ms: number): void {
    if (this.stopped || !this.env.ADAPTER_RECONCILE) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.reconcile(), ms);
    this.timer.unref();
  }

  private async pass(): Promise<ReconcileOutcome> {
    let outcome: ReconcileOutcome | 'failed';
    try {
      outcome = (await this.placements.exclusively((writer) => this.converge(writer))) ?? 'busy';
    } catch (error) {
      this.logger.warn({ err: error }, 'adapter reconcile pass failed; it is tried again');
      outcome = 'failed';
    }
    this.passes.inc({ outcome });
    const period = this.env.ADAPTER_RECONCILE_SECONDS * 1_000;
    if (outcome === 'settled' || outcome === 'busy') {
      this.retries.reset();
      this.schedule(period);
    } else {
      // Something missing (an endpoint away or restarting): look again soon, backing off a little.
      this.schedule(this.retries.next());
    }
    return outcome === 'failed' ? 'unsettled' : outcome;
  }

  private async converge(writer: PlacementWriter): Promise<ReconcileOutcome> {
    const checkpoints = await writer.adapterCheckpoints();
    const byEndpoint = new Map<string, { target: EngineTarget; wanted: AdapterCheckpoint[] }>();
    const known = new Set(checkpoints.map((c) => c.modelName));
    const kept: string[] = [];
    let settled = true;
    for (const checkpoint of checkpoints) {
      let targets: EngineTarget[];
      try {
        targets = checkpointModelEndpoints(checkpoint, this.policy);
      } catch (error) {
        if (!(error instanceof CheckpointEndpointRefusedError)) throw error;
        continue; // configuration forbids its endpoints: nothing is sent there, ever
      }
      for (const target of targets) {
        const entry = byEndpoint.get(target.baseUrl) ?? { target, wanted: [] };
        byEndpoint.set(target.baseUrl, entry);
        if (checkpoint.wanted) entry.wanted.push(checkpoint);
      }
    }
    for (const [baseUrl, { target, wanted }] of byEndpoint) {
      const record = async (
        checkpoint: AdapterCheckpoint,
        state: 'loaded' | 'missing' | 'failed',
        detail: string | null,
      ) => {
        kept.push(`${checkpoint.id}@${baseUrl}`);
        if (state === 'missing') settled = false;
        await writer.record({ checkpointId: checkpoint.id, baseUrl, state, detail });
      };
      this.desired.set({ endpoint: baseUrl }, wanted.length);
      let served: Map<string, string>;
      try {
        served = await this.engine.list(target);
      } catch (error) {
        const detail = `the endpoint is away: ${loadOutcome(error).detail}`;
        for (const checkpoint of wanted) await record(checkpoint, 'missing', detail);
        this.loaded.set({ endpoint: baseUrl }, 0);
        continue;
      }
      let loadedHere = 0;
      for (const checkpoint of wanted) {
        const state = await this.place(target, checkpoint, served.get(checkpoint.modelName));
        if (state.state === 'loaded') loadedHere += 1;
        await record(checkpoint, state.state, state.detail);
      }
      const wantedNames = new Set(wanted.map((c) => c.modelName));
      // Only adapters of our own checkpoints come down: anything else on a shared engine is someone else's.
      for (const name of served.keys()) {
        if (!known.has(name) || wantedNames.has(name)) continue;
        try {
          await this.engine.unload(target, name);
          this.actions.inc({ action: 'unload', outcome: 'ok' });
          this.logger.info({ endpoint: baseUrl, adapter: name }, 'adapter unloaded: no longer wanted');
        } catch (error) {
          settled = false;
          this.actions.inc({ action: 'unload', outcome: loadOutcome(error).kind });
          this.logger.warn({ endpoint: baseUrl, adapter: name, err: error }, 'adapter unload failed');
        }
      }
      this.loaded.set({ endpoint: baseUrl }, loadedHere);
    }
    await writer.keepOnly(kept);
    return settled ? 'settled' : 'unsettled';
  }

  /** Makes one wanted adapter served on one endpoint, given what the endpoint serves under its name now. */
  private async place(
    target: EngineTarget,
    checkpoint: AdapterCheckpoint,
    servedFrom: string | undefined,
  ): Promise<{ state: 'loaded' | 'missing' | 'failed'; detail: string | null }> {
    if (servedFrom === checkpoint.adapterPath) return { state: 'loaded', detail: null };
    if (servedFrom !== undefined) {
      // Never replaced: another holder of the name, or other weights, would be served under this checkpoint.
      return {
        state: 'failed',
        detail: `the endpoint serves ${checkpoint.modelName} from ${servedFrom}, not ${checkpoint.adapterPath}`,
      };
    }
    try {
      await this.engine.load(target, checkpoint.modelName, checkpoint.adapterPath);
      this.actions.inc({ action: 'load', outcome: 'ok' });
      this.logger.info({ endpoint: target.baseUrl, adapter: checkpoint.modelName }, 'adapter loaded');
      return { state: 'loaded', detail: null };
    } catch (error) {
      const { kind, detail } = loadOutcome(error);
      this.actions.inc({ action: 'load', outcome: kind });
      this.logger.warn(
        { endpoint: target.baseUrl, adapter: checkpoint.modelName, err: error },
        'adapter load failed',
      );
      // A load that timed out may have landed: the next pass sees it listed.
      return { state: kind === 'away' ? 'missing' : 'failed', detail };
    }
  }
}
