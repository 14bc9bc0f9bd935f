import { assignArm, assignmentBucket } from '@echoloop/experiments';
import type { CheckpointEntity, ExperimentEntity } from '@echoloop/persistence';
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

  constructor(
    private readonly repository: ExperimentsRepository,
    private readonly checkpoints: CheckpointsService,
  ) {}

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
    if (!experiment || !arm) {
      return { checkpoint: await this.checkpoints.defaultCheckpoint(), experimentId: null, armId: null };
    }
    return {
      checkpoint: await this.checkpoints.cached(arm.checkpointId),
      experimentId: experiment.id,
      armId: arm.id,
    };
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
