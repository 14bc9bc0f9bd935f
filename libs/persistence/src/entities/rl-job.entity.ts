import { RL_JOB_ACTIVE_STATUSES, type RlJobStatus, type RlTrigger } from '@echoloop/vocabulary';
import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

const ACTIVE_SQL = RL_JOB_ACTIVE_STATUSES.map((s) => `'${s}'`).join(', ');

/**
 * One RL refresh: snapshot → training job (Ray or a local process) → adapter served → gate → experiment. At most one
 * is active per lane, enforced by the database, so triggers on every orchestrator replica can race safely.
 */
@Entity({ name: 'rl_jobs' })
@Index('rl_jobs_one_active_per_lane', ['lane'], { unique: true, where: `status IN (${ACTIVE_SQL})` })
@Index('rl_jobs_created', ['createdAt'])
export class RlJobEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Refreshes of one lane never overlap (one lane per base model; `default` here). */
  @Column({ type: 'text', default: 'default' })
  lane!: string;

  @Column({ type: 'text', default: 'queued' })
  status!: RlJobStatus;

  @Column({ type: 'text' })
  trigger!: RlTrigger;

  /** The job template (`trl-dpo`, `verl-grpo`). */
  @Column({ type: 'text' })
  template!: string;

  /** `ray` or `local`. */
  @Column({ type: 'text' })
  runner!: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  hyperparameters!: Record<string, unknown>;

  /** The user or API key that asked (manual trigger). */
  @Column({ name: 'requested_by', type: 'text', nullable: true })
  requestedBy!: string | null;

  /** The runner's id for the job (Ray's submission id, the local process's pid). */
  @Column({ name: 'external_id', type: 'text', nullable: true })
  externalId!: string | null;

  /** The snapshot's manifest: dataset id, rows per split, file hashes. */
  @Column({ type: 'jsonb', nullable: true })
  dataset!: Record<string, unknown> | null;

  /** Training metrics: the curve (one point per step) and its summary. */
  @Column({ type: 'jsonb', nullable: true })
  metrics!: Record<string, unknown> | null;

  /** The job's output manifest (adapters and formats, base model and hash). */
  @Column({ type: 'jsonb', nullable: true })
  output!: Record<string, unknown> | null;

  @Column({ name: 'checkpoint_id', type: 'text', nullable: true })
  checkpointId!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  gate!: Record<string, unknown> | null;

  @Column({ name: 'experiment_id', type: 'uuid', nullable: true })
  experimentId!: string | null;

  /** The last lines of the job's log. */
  @Column({ name: 'logs_tail', type: 'text', nullable: true })
  logsTail!: string | null;

  /** Why it failed, was cancelled or skipped: a code and a sentence. */
  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ name: 'cancel_requested', type: 'boolean', default: false })
  cancelRequested!: boolean;

  /** The replica driving the job and until when its claim holds (it renews it while alive). */
  @Column({ name: 'lease_owner', type: 'text', nullable: true })
  leaseOwner!: string | null;

  @Column({ name: 'lease_expires_at', type: 'timestamptz', nullable: true })
  leaseExpiresAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}

/** What a trigger decided and why (started a refresh, or skipped: too soon, too little data, one running). */
@Entity({ name: 'rl_trigger_decisions' })
@Index('rl_trigger_decisions_at', ['at'])
export class RlTriggerDecisionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  at!: Date;

  @Column({ type: 'text' })
  trigger!: RlTrigger;

  /** `started` or `skipped`. */
  @Column({ type: 'text' })
  decision!: string;

  @Column({ type: 'text' })
  reason!: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  details!: Record<string, unknown>;

  @Column({ name: 'job_id', type: 'uuid', nullable: true })
  jobId!: string | null;
}
