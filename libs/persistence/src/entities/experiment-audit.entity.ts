import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Who changed what in an experiment, and when: written in the same transaction as the change. */
@Entity({ name: 'experiment_audit' })
@Index('experiment_audit_experiment', ['experimentId', 'at'])
export class ExperimentAuditEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  @Column({ name: 'experiment_id', type: 'uuid' })
  experimentId!: string;

  /** The user (or API key) that acted; null for the system (a guardrail stop). */
  @Column({ name: 'actor_id', type: 'uuid', nullable: true })
  actorId!: string | null;

  @Column({ type: 'text' })
  action!: string;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  details!: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz' })
  at!: Date;
}
