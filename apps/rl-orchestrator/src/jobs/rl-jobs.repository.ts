import { RL_JOB_ACTIVE_STATUSES, type RlJobStatus, type RlTrigger } from '@echoloop/vocabulary';
import { rlJobStatusV1, rlJobStatusV2 } from '@echoloop/contracts';
import { PG_ERROR, pgErrorCode, RlJobEntity, RlTriggerDecisionEntity } from '@echoloop/persistence';
import { createEvent } from '@echoloop/contracts';
import { enqueueEvent } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In, type EntityManager } from 'typeorm';
import { SERVICE_NAME } from '../service-name';

export interface NewJob {
  trigger: RlTrigger;
  template: string;
  runner: string;
  hyperparameters: Record<string, unknown>;
  requestedBy: string | null;
}

export type JobPatch = Partial<
  Pick<
    RlJobEntity,
    | 'externalId'
    | 'dataset'
    | 'metrics'
    | 'output'
    | 'checkpointId'
    | 'gate'
    | 'experimentId'
    | 'logsTail'
    | 'reason'
  >
>;

const ACTIVE = [...RL_JOB_ACTIVE_STATUSES];
const isEnd = (status: RlJobStatus) => !(ACTIVE as string[]).includes(status);

/** RL jobs and trigger decisions in PostgreSQL; every status change is published on rl.job.status.v2 (and v1). */
@Injectable()
export class RlJobsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A new queued job, or null when one is already active (the database allows one per lane). */
  async create(job: NewJob): Promise<RlJobEntity | null> {
    try {
      return await this.db.transaction(async (tx) => {
        const saved = await tx.getRepository(RlJobEntity).save({ ...job, status: 'queued' as const });
        await publish(tx, saved, null);
        return saved;
      });
    } catch (error) {
      if (pgErrorCode(error) === PG_ERROR.uniqueViolation) return null;
      throw error;
    }
  }

  get(id: string): Promise<RlJobEntity | null> {
    return this.db.getRepository(RlJobEntity).findOneBy({ id });
  }

  /** The job that trained this checkpoint, if a job did. */
  byCheckpoint(checkpointId: string): Promise<RlJobEntity | null> {
    return this.db.getRepository(RlJobEntity).findOneBy({ checkpointId });
  }

  list(limit: number): Promise<RlJobEntity[]> {
    return this.db.getRepository(RlJobEntity).find({ order: { createdAt: 'DESC' }, take: limit });
  }

  active(): Promise<RlJobEntity | null> {
    return this.db.getRepository(RlJobEntity).findOneBy({ status: In(ACTIVE) });
  }

  /** When the last refresh was asked for (skipped ones included): thresholds count what came after. */
  async lastRequestedAt(): Promise<Date | null> {
    const [last] = await this.db.getRepository(RlJobEntity).find({ order: { createdAt: 'DESC' }, take: 1 });
    return last?.createdAt ?? null;
  }

  /** Saves what a stage produced, without a status change. */
  async update(id: string, patch: JobPatch): Promise<void> {
    // jsonb columns hold plain JSON; TypeORM's deep-partial type cannot see that.
    await this.db.getRepository(RlJobEntity).update({ id }, patch as never);
  }

  /**
   * Moves an active job to `status` (with what the stage produced) and publishes the change, in one transaction.
   * Returns the job as it now stands, or null when it had already ended (cancelled meanwhile, for instance) or, given
   * `from`, had left that stage (a step run twice moves the job, and announces it, once).
   */
  async transition(
    id: string,
    status: RlJobStatus,
    patch: JobPatch = {},
    from?: RlJobStatus,
  ): Promise<RlJobEntity | null> {
    return this.db.transaction(async (tx) => {
      const repo = tx.getRepository(RlJobEntity);
      const job = await repo.findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!job || isEnd(job.status) || (from !== undefined && job.status !== from)) return null;
      const previous = job.status;
      const ended = isEnd(status);
      Object.assign(job, patch, { status }, ended && { finishedAt: new Date(), leaseOwner: null });
      const saved = await repo.save(job);
      await publish(tx, saved, previous);
      return saved;
    });
  }

  /** Asks a job to stop; true when it is active (the driver stops it at its next check). */
  async requestCancel(id: string): Promise<boolean> {
    const result = await this.db
      .getRepository(RlJobEntity)
      .update({ id, status: In(ACTIVE) }, { cancelRequested: true });
    return (result.affected ?? 0) > 0;
  }

  /**
   * Takes the active job for this replica when nobody holds it (its holder's lease ran out: that replica died),
   * or renews this replica's own lease. Null when there is no active job or another replica holds it.
   */
  async claim(owner: string, now: Date, leaseMs: number): Promise<RlJobEntity | null> {
    const until = new Date(now.getTime() + leaseMs);
    // Wrapped in a SELECT: the driver answers a bare UPDATE ... RETURNING with [rows, count], a SELECT with rows.
    const rows: { id: string }[] = await this.db.query(
      `WITH claimed AS (
         UPDATE rl_jobs SET lease_owner = $1, lease_expires_at = $2
          WHERE status = ANY($3) AND (lease_owner IS NULL OR lease_owner = $1 OR lease_expires_at < $4)
          RETURNING id)
       SELECT id FROM claimed`,
      [owner, until, ACTIVE, now],
    );
    const [row] = rows;
    return row ? this.get(row.id) : null;
  }

  /** Lets go of this replica's claims (a clean shutdown): another replica, or the restarted one, takes over at once. */
  async release(owner: string): Promise<void> {
    await this.db.query(
      `UPDATE rl_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = $1`,
      [owner],
    );
  }

  async recordDecision(decision: {
    trigger: RlTrigger;
    decision: 'started' | 'skipped';
    reason: string;
    details?: Record<string, unknown>;
    jobId?: string | null;
  }): Promise<RlTriggerDecisionEntity> {
    return this.db.getRepository(RlTriggerDecisionEntity).save({
      trigger: decision.trigger,
      decision: decision.decision,
      reason: decision.reason,
      details: decision.details ?? {},
      jobId: decision.jobId ?? null,
    });
  }

  decisions(limit: number): Promise<RlTriggerDecisionEntity[]> {
    return this.db.getRepository(RlTriggerDecisionEntity).find({ order: { at: 'DESC' }, take: limit });
  }
}

/** Every status change on rl.job.status.v2, and on v1 for its consumers (where `rendered` reads `succeeded`). */
async function publish(tx: EntityManager, job: RlJobEntity, previous: RlJobStatus | null): Promise<void> {
  const payload = {
    jobId: job.id,
    status: job.status,
    previousStatus: previous,
    trigger: job.trigger,
    template: job.template,
    runner: job.runner,
    datasetId: typeof job.dataset?.['id'] === 'string' ? job.dataset['id'] : null,
    checkpointId: job.checkpointId,
    experimentId: job.experimentId,
    reason: job.reason,
  };
  const v1Status = (status: RlJobStatus) => (status === 'rendered' ? 'succeeded' : status);
  await enqueueEvent(tx, rlJobStatusV2, createEvent(rlJobStatusV2, payload, SERVICE_NAME), job.id);
  await enqueueEvent(
    tx,
    rlJobStatusV1,
    createEvent(
      rlJobStatusV1,
      { ...payload, status: v1Status(job.status), previousStatus: previous && v1Status(previous) },
      SERVICE_NAME,
    ),
    job.id,
  );
}
