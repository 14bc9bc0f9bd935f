import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const EXPERIMENT_STATUSES = ['draft', 'running', 'stopped', 'promoted'] as const;
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

/** One arm: a checkpoint and its share of the traffic. Exactly one arm of an experiment is the control. */
export interface ExperimentArm {
  id: string;
  checkpointId: string;
  weight: number;
  control: boolean;
}

/** Who may enter: a share of all users, chosen by a hash independent of the arm's. */
export interface ExperimentAudience {
  trafficPercent: number;
}

/** A comparison of checkpoints on live traffic, draft → running → stopped or promoted. */
@Entity({ name: 'experiments' })
export class ExperimentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  description!: string | null;

  @Column({ type: 'text', default: 'draft' })
  status!: ExperimentStatus;

  /** Hashed with the user id to assign arms (libs/experiments assignArm); fixed at creation. */
  @Column({ type: 'text' })
  seed!: string;

  @Column({ type: 'jsonb' })
  arms!: ExperimentArm[];

  @Column({ type: 'jsonb', default: () => `'{"trafficPercent": 100}'` })
  audience!: ExperimentAudience;

  /** Why it stopped: by whom, or which guardrail. */
  @Column({ name: 'stop_reason', type: 'text', nullable: true })
  stopReason!: string | null;

  /** Per `metric:arm`, the smallest sequential p-value seen so far: always-valid p-values only go down. */
  @Column({ name: 'sequential_p_values', type: 'jsonb', default: () => "'{}'" })
  sequentialPValues!: Record<string, number>;

  @Column({ name: 'promoted_arm_id', type: 'text', nullable: true })
  promotedArmId!: string | null;

  @Column({ name: 'created_by', type: 'uuid', nullable: true })
  createdBy!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
