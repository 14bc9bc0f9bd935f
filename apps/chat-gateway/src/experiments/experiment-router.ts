import { assignArm, assignmentBucket } from '@echoloop/experiments';
import type { CheckpointEntity, ExperimentEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { TtlCache } from '../common/ttl-cache';
import { ExperimentsRepository } from './experiments.repository';

export interface Route {
  checkpoint: CheckpointEntity;
  experimentId: string | null;
  armId: string | null;
}

/**
 * Which checkpoint answers a user: their arm's, when a running experiment takes them in, else the default.
 * The arm is recorded at first exposure and kept, so it is sticky across conversations, sessions and weight
 * changes; only users never seen follow the current weights.
 */
@Injectable()
export class ExperimentRouter {
  // Changes are announced (CacheChanges): a turn never waits for it, and the ttl bounds a lost announcement.
  private readonly running = new TtlCache<'running', ExperimentEntity | null>(3_000, { serveStale: true });
  private readonly arms = new TtlCache<string, string | null>(60_000);
  private readonly fallbacks;

  constructor(
    private readonly repository: ExperimentsRepository,
    private readonly checkpoints: CheckpointsService,
    metrics: MetricsService,
  ) {
    this.fallbacks = metrics.counter(
      'experiment_adapter_fallbacks_total',
      'Turns of an experiment arm whose adapter no endpoint served, answered by the default outside the experiment',
      ['checkpoint'],
    );
  }

  /** Forgets the cached experiment at once (this process changed it); other instances follow within seconds. */
  invalidate(): void {
    this.running.delete('running');
  }

  async route(userId: string): Promise<Route> {
    const experiment = await this.running.get('running', () => this.repository.findRunning());
    const armId = experiment
      ? await this.arms.get(`${experiment.id}:${userId}`, () => this.assign(experiment, userId))
      : null;
    const arm = armId ? experiment?.arms.find((a) => a.id === armId) : undefined;
    if (!experiment || !arm) return this.byDefault();
    const checkpoint = await this.checkpoints.cached(arm.checkpointId);
    // An arm whose adapter is not loaded anywhere (an engine restarted, a load refused) must not fail the user's
    // turn: the default answers, and the turn stays out of the experiment so the arm's metrics are not skewed.
    if (!(await this.checkpoints.servable(checkpoint))) {
      this.fallbacks.inc({ checkpoint: checkpoint.id });
      return this.byDefault();
    }
    return { checkpoint, experimentId: experiment.id, armId: arm.id };
  }

  private async byDefault(): Promise<Route> {
    return { checkpoint: await this.checkpoints.defaultCheckpoint(), experimentId: null, armId: null };
  }

  /** The recorded arm, or a new assignment recorded now (first exposure); null when outside the audience. */
  private async assign(experiment: ExperimentEntity, userId: string): Promise<string | null> {
    // The audience uses its own hash, so who takes part and which arm they get are independent.
    if (assignmentBucket(`${experiment.seed}:audience`, userId) * 100 >= experiment.audience.trafficPercent)
      return null;
    const armId = assignArm(experiment.seed, userId, experiment.arms);
    return (await this.repository.recordAssignment(experiment.id, userId, armId)) ?? armId;
  }
}
