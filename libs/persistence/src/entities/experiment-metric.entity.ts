import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One user's running total of one metric in one experiment: statistics are per user (each user one value, the
 * mean of their turns), so heavy users do not dominate.
 */
@Entity({ name: 'experiment_user_metrics' })
export class ExperimentUserMetricEntity {
  @PrimaryColumn({ name: 'experiment_id', type: 'uuid' })
  experimentId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @PrimaryColumn({ type: 'text' })
  metric!: string;

  @Column({ name: 'arm_id', type: 'text' })
  armId!: string;

  @Column({ type: 'integer' })
  count!: number;

  @Column({ type: 'double precision' })
  total!: number;
}

/**
 * Per arm and metric, the moments of the users' means, kept up to date incrementally: when a user's mean moves
 * from m to m', sum += m' - m and sum of squares += m'^2 - m^2. Results read these rows, never the turns.
 */
@Entity({ name: 'experiment_arm_metrics' })
export class ExperimentArmMetricEntity {
  @PrimaryColumn({ name: 'experiment_id', type: 'uuid' })
  experimentId!: string;

  @PrimaryColumn({ name: 'arm_id', type: 'text' })
  armId!: string;

  @PrimaryColumn({ type: 'text' })
  metric!: string;

  @Column({ type: 'integer' })
  users!: number;

  @Column({ type: 'double precision' })
  sum!: number;

  @Column({ name: 'sum_squares', type: 'double precision' })
  sumSquares!: number;

  /** Turns behind the users' values. */
  @Column({ type: 'integer', default: 0 })
  turns!: number;
}

/**
 * One user's experiment metrics before their exposure (CUPED's covariate): the mean of each per-turn metric over
 * their turns in the pre-period window, written once, when their first turn in the experiment is finished. Users
 * with no turns in the window have a row with no values (so the work is never repeated).
 */
@Entity({ name: 'experiment_user_pre_periods' })
export class ExperimentUserPrePeriodEntity {
  @PrimaryColumn({ name: 'experiment_id', type: 'uuid' })
  experimentId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  /** Metric name to the user's pre-period value. */
  @Column({ type: 'jsonb' })
  values!: Record<string, number>;

  /** Turns the values were computed from. */
  @Column({ type: 'integer' })
  turns!: number;
}
