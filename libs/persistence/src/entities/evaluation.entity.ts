import type { EvaluationMode, EvaluationStatus } from '@echoloop/vocabulary';
import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';

/** A model the evaluation pinned: where it was called and under which name. */
export interface PinnedModel {
  baseUrl: string;
  model: string;
}

/** One benchmark run of a checkpoint on simulated users; its episodes are stored as they finish. */
@Entity({ name: 'evaluations' })
@Index('evaluations_checkpoint', ['checkpointId', 'createdAt'])
export class EvaluationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'checkpoint_id', type: 'text' })
  checkpointId!: string;

  @Column({ type: 'text' })
  suite!: string;

  @Column({ name: 'profile_ids', type: 'text', array: true })
  profileIds!: string[];

  @Column({ type: 'jsonb' })
  policy!: PinnedModel;

  @Column({ type: 'jsonb' })
  simulator!: PinnedModel;

  /** 'sage': SAGE's stop rule; 'epm': EMPA's C/A/P verdict (the judge is then pinned too). */
  @Column({ type: 'text', default: 'sage' })
  mode!: EvaluationMode;

  @Column({ type: 'jsonb', nullable: true })
  judge!: PinnedModel | null;

  /** At most this many policy turns per conversation; null: the mode's own stop rule. */
  @Column({ name: 'max_turns', type: 'integer', nullable: true })
  maxTurns!: number | null;

  @Column({ type: 'text', default: 'running' })
  status!: EvaluationStatus;

  @Column({ type: 'jsonb', nullable: true })
  metrics!: Record<string, unknown> | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}

/** One simulated conversation of an evaluation, with its full trace. */
@Entity({ name: 'evaluation_episodes' })
export class EvaluationEpisodeEntity {
  @PrimaryColumn({ name: 'evaluation_id', type: 'uuid' })
  evaluationId!: string;

  @ManyToOne(() => EvaluationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'evaluation_id' })
  evaluation?: EvaluationEntity;

  @PrimaryColumn({ name: 'profile_id', type: 'text' })
  profileId!: string;

  /** The library's EpisodeResult, whole. */
  @Column({ type: 'jsonb' })
  episode!: Record<string, unknown>;
}
