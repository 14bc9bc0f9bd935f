import type { CovariateMoments } from '@echoloop/experiments';
import {
  ExperimentArmMetricEntity,
  ExperimentAuditEntity,
  ExperimentEntity,
  type ExperimentStatus,
} from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { CheckpointsService } from '../checkpoints/checkpoints.service';

/** The columns a new experiment is created with; the database fills the rest. */
export type NewExperiment = Pick<
  ExperimentEntity,
  'name' | 'description' | 'seed' | 'arms' | 'audience' | 'createdBy'
>;

/** What a change to an experiment may do inside its transaction. */
export interface ExperimentsTransaction {
  /** Inserts the experiment; the saved entity (with its id). */
  insert(values: NewExperiment): Promise<ExperimentEntity>;
  /** The experiment, locked until the transaction ends; null when there is none. */
  lock(id: string): Promise<ExperimentEntity | null>;
  /** The experiment as this transaction sees it; null when there is none. */
  find(id: string): Promise<ExperimentEntity | null>;
  countWithStatus(status: ExperimentStatus): Promise<number>;
  update(id: string, changes: Partial<ExperimentEntity>): Promise<void>;
  /** Makes a checkpoint the default for everyone, in this transaction (CheckpointsService's rules apply). */
  setDefaultCheckpoint(checkpointId: string): Promise<void>;
  audit(entry: ExperimentAuditInput): Promise<void>;
}

export interface ExperimentAuditInput {
  experimentId: string;
  /** null when the system (a guardrail) made the change. */
  actorId: string | null;
  action: string;
  details: Record<string, unknown>;
}

/** One arm's CUPED moments of one metric (see covariateMoments). */
export interface ArmCovariateMoments extends CovariateMoments {
  armId: string;
  metric: string;
  /** Users with a pre-period value of their own. */
  withPrePeriod: number;
}

/** The users assigned to each arm of an experiment. */
export interface ArmAssignments {
  arm_id: string;
  users: number;
}

/** Every read and write of experiments, their audit, assignments and per-arm metrics. */
@Injectable()
export class ExperimentsRepository {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly checkpoints: CheckpointsService,
  ) {}

  /** Newest first. */
  list(): Promise<ExperimentEntity[]> {
    return this.db.getRepository(ExperimentEntity).find({ order: { createdAt: 'DESC' } });
  }

  find(id: string): Promise<ExperimentEntity | null> {
    return this.db.getRepository(ExperimentEntity).findOneBy({ id });
  }

  /** The running experiment (at most one runs), or null. */
  findRunning(): Promise<ExperimentEntity | null> {
    return this.db.getRepository(ExperimentEntity).findOneBy({ status: 'running' });
  }

  /** Oldest first. */
  auditLog(experimentId: string): Promise<ExperimentAuditEntity[]> {
    return this.db
      .getRepository(ExperimentAuditEntity)
      .find({ where: { experimentId }, order: { at: 'ASC' } });
  }

  /**
   * Records the user's arm unless one is recorded already; the recorded arm either way (the first exposure
   * wins), or undefined if neither could be read.
   */
  async recordAssignment(experimentId: string, userId: string, armId: string): Promise<string | undefined> {
    const [row] = (await this.db.query(
      `WITH inserted AS (
         INSERT INTO experiment_assignments (experiment_id, user_id, arm_id) VALUES ($1, $2, $3)
         ON CONFLICT (experiment_id, user_id) DO NOTHING RETURNING arm_id)
       SELECT arm_id FROM inserted
       UNION ALL SELECT arm_id FROM experiment_assignments WHERE experiment_id = $1 AND user_id = $2
       LIMIT 1`,
      [experimentId, userId, armId],
    )) as { arm_id: string }[];
    return row?.arm_id;
  }

  /** Users assigned per arm; arms nobody is assigned to are absent. */
  async assignmentsByArm(experimentId: string): Promise<ArmAssignments[]> {
    return (await this.db.query(
      'SELECT arm_id, count(*)::int AS users FROM experiment_assignments WHERE experiment_id = $1 GROUP BY arm_id',
      [experimentId],
    )) as ArmAssignments[];
  }

  /** The incrementally kept per-arm, per-metric moments. */
  armMetrics(experimentId: string): Promise<ExperimentArmMetricEntity[]> {
    return this.db.getRepository(ExperimentArmMetricEntity).findBy({ experimentId });
  }

  /**
   * Per arm and metric, CUPED's moments of (pre-period value, experiment value) over the users with a value: a user
   * without a pre-period value takes the metric's mean over those with one (an adjustment of 0). Metrics no user
   * has a pre-period value of are absent. One row per user and metric is read in the database, never the turns.
   */
  async covariateMoments(experimentId: string): Promise<ArmCovariateMoments[]> {
    const rows = (await this.db.query(
      `WITH users AS (
         SELECT m.arm_id, m.metric, CASE WHEN m.count > 0 THEN m.total / m.count ELSE 0 END AS y,
           (p.values ->> m.metric)::float8 AS x
         FROM experiment_user_metrics m
         LEFT JOIN experiment_user_pre_periods p USING (experiment_id, user_id)
         WHERE m.experiment_id = $1),
       filled AS (SELECT arm_id, metric, y, x, COALESCE(x, avg(x) OVER (PARTITION BY metric)) AS xf FROM users)
       SELECT arm_id AS "armId", metric, count(*)::int AS n, count(x)::int AS "withPrePeriod",
         sum(xf) AS "sumX", sum(y) AS "sumY", sum(xf * xf) AS "sumXX", sum(y * y) AS "sumYY", sum(xf * y) AS "sumXY"
       FROM filled WHERE xf IS NOT NULL GROUP BY arm_id, metric`,
      [experimentId],
    )) as ArmCovariateMoments[];
    return rows.map((r) => ({
      ...r,
      sumX: +r.sumX,
      sumY: +r.sumY,
      sumXX: +r.sumXX,
      sumYY: +r.sumYY,
      sumXY: +r.sumXY,
    }));
  }

  async saveSequentialPValues(experimentId: string, pValues: Record<string, number>): Promise<void> {
    await this.db.query('UPDATE experiments SET sequential_p_values = $2 WHERE id = $1', [
      experimentId,
      JSON.stringify(pValues),
    ]);
  }

  /** Runs the work in one transaction: all its writes commit together, or none does. */
  transaction<T>(work: (tx: ExperimentsTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction((manager) => work(this.experimentsTransaction(manager)));
  }

  private experimentsTransaction(manager: EntityManager): ExperimentsTransaction {
    const experiments = manager.getRepository(ExperimentEntity);
    return {
      insert: (values) => experiments.save(values),
      lock: (id) =>
        experiments.createQueryBuilder('e').setLock('pessimistic_write').where('e.id = :id', { id }).getOne(),
      find: (id) => experiments.findOneBy({ id }),
      countWithStatus: (status) => experiments.countBy({ status }),
      update: async (id, changes) => {
        await experiments.update({ id }, changes);
      },
      setDefaultCheckpoint: (checkpointId) => this.checkpoints.setDefault(checkpointId, manager),
      audit: async ({ experimentId, actorId, action, details }) => {
        await manager
          .getRepository(ExperimentAuditEntity)
          .insert({ experimentId, actorId, action, details: details as never });
      },
    };
  }
}
