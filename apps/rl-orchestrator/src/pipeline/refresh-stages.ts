import type { RlJobEntity } from '@echoloop/persistence';
import type { TrainingSelection } from '@echoloop/vocabulary';
import { CLOCK, type Clock, ServiceCallError } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type CheckpointView, GatewayClient } from '../clients/gateway.client';
import type { OrchestratorEnv } from '../env';
import { GateService, type GateResult } from '../gate/gate.service';
import { JOB_RUNNER, type JobRunner } from '../runners/job-runner';
import { type Hyperparameters, JOB_TEMPLATES, type TemplateName } from '../runners/job-templates';
import { AdapterPlacementsRepository } from '../serving/adapter-placements.repository';
import { AdapterReconciler } from '../serving/adapter-reconciler';
import { type BaseCheck, BaseWeights } from '../serving/base-weights';
import {
  type Snapshot,
  SnapshotBuilder,
  type SnapshotOutcome,
  type SnapshotParent,
} from '../snapshot/snapshot-builder';
import { RlJobsRepository } from '../jobs/rl-jobs.repository';
import { ORCHESTRATOR_ENV } from '../tokens';
import { JobFailure } from '../jobs/job-failure';
import { parseJobLogs } from './job-logs';

export type TrainingProgress =
  | { done: false; metrics: Record<string, unknown>; logsTail: string }
  | { done: true; metrics: Record<string, unknown>; logsTail: string; output: Record<string, unknown> };

/** What a job trains on: the snapshot, and the base weights checked against the serving endpoints before it. */
export type TrainingSet = Snapshot & { base: BaseCheck };

/** The training manifest's verdict on its best step. */
export const selectionOf = (output: Record<string, unknown> | null | undefined): TrainingSelection | null =>
  ((output?.['metrics'] as Record<string, unknown> | undefined)?.['selection'] as
    | TrainingSelection
    | undefined) ?? null;

/** Where the served candidate lives: enough to take it down again. */
export interface Serving {
  adapterName: string;
  adapterPath: string;
  endpoints: CheckpointView['endpoints'];
  defaultCheckpointId: string;
}

const serving = (job: RlJobEntity) => (job.output?.['serving'] as Serving | undefined) ?? null;

/** The work of each stage of a refresh, one call per step; the driver keeps the job's state between them. */
@Injectable()
export class RefreshStages {
  constructor(
    private readonly snapshots: SnapshotBuilder,
    @Inject(JOB_RUNNER) private readonly runner: JobRunner,
    private readonly gateway: GatewayClient,
    private readonly reconciler: AdapterReconciler,
    private readonly placements: AdapterPlacementsRepository,
    private readonly gates: GateService,
    private readonly base: BaseWeights,
    private readonly jobs: RlJobsRepository,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The refresh builds on the current default: its adapter is trained further on the data since its snapshot (plus
   * a replay sample). Before any data is read, the base weights training will use are checked against what the
   * default's endpoints serve, and against the base the parent was trained on.
   */
  async snapshot(job: RlJobEntity): Promise<SnapshotOutcome> {
    const current = await this.gateway.defaultCheckpoint();
    const trainedBy = current.adapterPath ? await this.jobs.byCheckpoint(current.id) : null;
    const parentBase = (trainedBy?.output?.['baseModel'] as { ggufSha256?: string } | undefined)?.ggufSha256;
    const base = await this.base.verify(
      current.endpoints,
      parentBase ? { what: `the parent ${current.id}`, sha256: parentBase } : undefined,
    );
    const cutoff = trainedBy?.dataset?.['cutoff'];
    const parent: SnapshotParent = {
      checkpointId: current.id,
      jobId: trainedBy?.id ?? null,
      adapterPath: current.adapterPath,
      cutoff: typeof cutoff === 'string' ? cutoff : null,
    };
    const outcome = await this.snapshots.build(job.id, template(job).datasetKind, parent);
    return outcome.ok ? { ok: true, snapshot: { ...outcome.snapshot, base } as TrainingSet } : outcome;
  }

  outputDir(job: RlJobEntity): string {
    return path.resolve(this.env.RL_WORK_DIR, 'jobs', job.id);
  }

  async submit(job: RlJobEntity): Promise<string> {
    const snapshot = job.dataset as unknown as TrainingSet;
    const hyperparameters = job.hyperparameters as Hyperparameters;
    const outputDir = this.outputDir(job);
    return this.runner.submit({
      jobId: job.id,
      gpus: this.env.RL_JOB_GPUS,
      argv: template(job).argv({
        python: this.env.RL_PYTHON,
        snapshotDir: snapshot.dir,
        outputDir,
        baseGguf: path.resolve(this.env.RL_BASE_GGUF),
        datasetId: snapshot.id,
        parentAdapter: snapshot.parent.adapterPath,
        profilesFile: this.env.RL_GRPO_PROFILES ? path.resolve(this.env.RL_GRPO_PROFILES) : null,
        threads: this.env.RL_TRAIN_THREADS,
        hyperparameters: {
          ...(this.env.RL_LEARNING_RATE !== undefined && { learningRate: this.env.RL_LEARNING_RATE }),
          ...hyperparameters,
          maxSteps: hyperparameters.maxSteps ?? this.env.RL_MAX_STEPS,
          epochs: hyperparameters.epochs ?? this.env.RL_EPOCHS,
          patience: this.env.RL_PATIENCE,
          maxKl: this.env.RL_MAX_KL,
        },
      }),
      env: {
        PYTHONPATH: path.resolve(this.env.RL_PYTHON_PATH),
        PYTHONUNBUFFERED: '1',
        HF_HUB_OFFLINE: '1',
        TRANSFORMERS_OFFLINE: '1',
        ...(this.env.ECHOLOOP_CACHE_DIR && { ECHOLOOP_CACHE_DIR: path.resolve(this.env.ECHOLOOP_CACHE_DIR) }),
        ...(template(job).rewardedLive && (await this.rewardServices(snapshot.dir))),
      },
      logFile: path.join(outputDir, 'job.log'),
    });
  }

  /**
   * The addresses of the services that reward a live template's rollouts (the labeller, the eval-runner's
   * simulator) and a file holding the service key. The key goes in a file of the snapshot's folder (readable by its
   * owner alone, deleted with the snapshot when the job ends), never in the job's environment, which Ray keeps in
   * its control store and shows (values hidden) on its dashboard.
   */
  private async rewardServices(snapshotDir: string): Promise<Record<string, string>> {
    const key = this.env.SERVICE_API_KEY;
    if (!key) throw new JobFailure('not_configured', 'SERVICE_API_KEY is needed to reward rollouts live');
    const keyFile = path.join(snapshotDir, '.service-key');
    await writeFile(keyFile, key, { mode: 0o600 });
    return {
      ECHOLOOP_LABELLER_URL: this.env.LABELLER_URL,
      ECHOLOOP_LABELLER_KEY_FILE: keyFile,
      ECHOLOOP_SIMULATOR_URL: this.env.EVAL_RUNNER_URL,
      ECHOLOOP_SIMULATOR_KEY_FILE: keyFile,
    };
  }

  /** One look at the running job: its curve and log tail, and its output manifest once it succeeded. */
  async poll(job: RlJobEntity & { externalId: string }): Promise<TrainingProgress> {
    // Status first: logs read after a job ended hold its last lines.
    const status = await this.runner.status(job.externalId);
    const logs = await this.runner.logs(job.externalId);
    const parsed = parseJobLogs(logs);
    const metrics = { ...job.metrics, curve: parsed.curve, validation: parsed.validation, last: parsed.last };
    if (status.state === 'pending' || status.state === 'running') {
      return { done: false, metrics, logsTail: parsed.tail };
    }
    if (status.state === 'succeeded') {
      const manifestPath = parsed.manifestPath ?? path.join(this.outputDir(job), 'manifest.json');
      const output = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
      const summary = (output['metrics'] as Record<string, unknown> | undefined) ?? {};
      return { done: true, metrics: { ...metrics, ...summary }, logsTail: parsed.tail, output };
    }
    const lastLine = parsed.tail.split('\n').at(-1) ?? '';
    const code =
      status.state === 'lost' ? 'job_lost' : status.state === 'stopped' ? 'job_stopped' : 'job_failed';
    // Ray's message carries the whole log after its first line: the tail is kept apart (logsTail).
    const [firstLine = status.state] = (status.message ?? status.state).split('\n');
    const what = firstLine.replace(/[,:]?\s*last available logs.*$/, '');
    throw new JobFailure(
      code,
      `${what}${lastLine ? ` (last log line: ${lastLine.slice(0, 300)})` : ''}`,
      parsed.tail,
    );
  }

  /** Stops the running job; true once the runner says it is no longer running. */
  async stop(job: RlJobEntity & { externalId: string }): Promise<boolean> {
    await this.runner.stop(job.externalId);
    const { state } = await this.runner.status(job.externalId);
    return state !== 'pending' && state !== 'running';
  }

  /** Ends the runs that would not outlive this process (local ones; Ray's carry on). */
  close(): void {
    this.runner.close?.();
  }

  producesAdapter(job: RlJobEntity): boolean {
    return template(job).producesAdapter;
  }

  /**
   * Registers the adapter as a candidate checkpoint on the default's endpoints, and waits until the adapter
   * reconciler has it loaded on every one. A refusal retires the candidate (the reconciler unloads it wherever it
   * landed); an endpoint away is a transient error (the stage is tried again).
   */
  async serve(job: RlJobEntity): Promise<{ checkpointId: string; serving: Serving }> {
    const adapter = (job.output?.['adapters'] as { format: string; path: string }[] | undefined)?.find(
      (a) => a.format === 'peft',
    );
    if (!adapter) throw new JobFailure('no_adapter', 'the job output names no PEFT adapter');
    const current = await this.gateway.defaultCheckpoint();
    const trainedOn = (job.output?.['baseModel'] as { ggufSha256?: string } | undefined)?.ggufSha256;
    if (!trainedOn) throw new JobFailure('base_mismatch', 'the job output names no base weights');
    await this.base.verify(current.endpoints, { what: 'the candidate', sha256: trainedOn });
    const name = checkpointName(job, this.clock());
    const entry: Serving = {
      adapterName: name,
      adapterPath: adapter.path,
      endpoints: current.endpoints,
      defaultCheckpointId: current.id,
    };
    try {
      await this.gateway.registerCheckpoint({
        id: name,
        modelName: name,
        adapterPath: adapter.path,
        endpoints: current.endpoints,
        decoding: current.decoding,
        contextTokens: current.contextTokens,
      });
    } catch (error) {
      // A step tried again after its registration landed finds its own checkpoint.
      if (!(error instanceof ServiceCallError && error.status === 409))
        throw asFailure('register_failed', error);
    }
    if ((await this.reconciler.reconcile()) === 'busy') {
      throw new ServiceCallError('adapter reconciler', null, 'another replica is reconciling adapters');
    }
    const placements = await this.placements.of(name);
    const refused = placements.find((p) => p.state === 'failed');
    if (refused) {
      await this.retireCheckpoint(name);
      throw new JobFailure(
        'load_failed',
        `loading ${name} into ${refused.baseUrl} failed: ${refused.detail}`,
      );
    }
    const missing = current.endpoints.filter(
      (e) => !placements.some((p) => p.baseUrl === e.baseUrl && p.state === 'loaded'),
    );
    if (missing.length > 0) {
      const detail = placements.find((p) => p.state === 'missing')?.detail ?? 'not loaded yet';
      throw new ServiceCallError(
        'model server',
        null,
        `${name} is not loaded on ${missing[0]?.baseUrl}: ${detail}`,
      );
    }
    return { checkpointId: name, serving: entry };
  }

  async gate(job: RlJobEntity): Promise<GateResult> {
    const entry = serving(job);
    if (!job.checkpointId || !entry) throw new JobFailure('not_served', 'the candidate was never served');
    const registered = await this.gateway.checkpoints();
    const find = (id: string) => {
      const found = registered.find((c) => c.id === id);
      if (!found) throw new JobFailure('checkpoint_missing', `checkpoint ${id} is not registered`);
      return found;
    };
    const snapshot = job.dataset as unknown as Snapshot;
    return this.gates.run(
      find(job.checkpointId),
      find(entry.defaultCheckpointId),
      path.join(snapshot.dir, snapshot.heldout.file),
      { klToParent: selectionOf(job.output)?.klToParent ?? null },
    );
  }

  /** Opens and starts candidate vs default; a draft is left when another experiment is running. */
  async experiment(job: RlJobEntity): Promise<{ experimentId: string; note: string | null }> {
    const entry = serving(job);
    if (!job.checkpointId || !entry) throw new JobFailure('not_served', 'the candidate was never served');
    const share = this.env.EXPERIMENT_TRAFFIC_PERCENT;
    const experiment = await this.gateway.createExperiment({
      name: `RL refresh ${job.checkpointId}`,
      description: `Opened by the rl-orchestrator for job ${job.id}: candidate ${job.checkpointId} on ${share}% of users against the default ${entry.defaultCheckpointId}.`,
      arms: [
        { id: 'control', checkpointId: entry.defaultCheckpointId, weight: 100 - share, control: true },
        { id: 'candidate', checkpointId: job.checkpointId, weight: share },
      ],
    });
    try {
      await this.gateway.startExperiment(experiment.id);
      return { experimentId: experiment.id, note: null };
    } catch (error) {
      if (error instanceof ServiceCallError && error.status === 409) {
        return {
          experimentId: experiment.id,
          note: `experiment_not_started: ${error.message}; it waits as a draft`,
        };
      }
      throw error;
    }
  }

  /**
   * Takes a candidate out of production: its checkpoint retired, so the reconciler unloads its adapter everywhere
   * (asked now, not at its next period). Never touches the default.
   */
  async retire(job: RlJobEntity): Promise<void> {
    const id = job.checkpointId ?? serving(job)?.adapterName;
    if (!id) return;
    await this.retireCheckpoint(id);
  }

  private async retireCheckpoint(id: string): Promise<void> {
    await this.gateway.retireCheckpoint(id).catch((error: unknown) => {
      if (error instanceof ServiceCallError && error.status === 404) return;
      throw error;
    });
    await this.reconciler.reconcile();
  }

  /**
   * The snapshot's files (pseudonymous user text) are deleted once the job ends: the adapter and the manifest (row
   * counts, hashes) remain, and an erased user's words do not linger in a training folder.
   */
  async discardSnapshot(job: RlJobEntity): Promise<void> {
    const dir = job.dataset?.['dir'];
    if (typeof dir === 'string') await rm(dir, { recursive: true, force: true });
  }
}

function template(job: RlJobEntity) {
  const found = JOB_TEMPLATES[job.template as TemplateName] as
    | (typeof JOB_TEMPLATES)[TemplateName]
    | undefined;
  if (!found) throw new JobFailure('unknown_template', `no job template ${job.template}`);
  return found;
}

/** `rl-20261125-1a2b3c4d`: dated and unique per job, so a name is never reused. */
export function checkpointName(job: Pick<RlJobEntity, 'id'>, now: Date): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, '');
  return `rl-${day}-${job.id.slice(0, 8)}`;
}

/** A service away stays a transient error (the stage is tried again); anything else ends the job with `code`. */
function asFailure(code: string, error: unknown): Error {
  if (error instanceof ServiceCallError && error.transient) return error;
  return new JobFailure(code, error instanceof Error ? error.message : String(error));
}
