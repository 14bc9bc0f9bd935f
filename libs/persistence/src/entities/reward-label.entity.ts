import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { RewardTurnEntity } from './reward-turn.entity';

export const REWARD_LABEL_STATUSES = ['labelled', 'failed', 'skipped'] as const;
export type RewardLabelStatus = (typeof REWARD_LABEL_STATUSES)[number];

/**
 * One reward component of one turn by one labeller version: written once; updated only when it is judged again (a
 * failed label retried, empathy against a reference the user gave later).
 */
@Entity({ name: 'reward_labels' })
@Index('reward_labels_failed_idx', ['attemptedAt'], { where: "status = 'failed'" })
@Index('reward_labels_turn_component_version_key', ['turnId', 'component', 'labellerVersion'], {
  unique: true,
})
export class RewardLabelEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  @Column({ name: 'turn_id', type: 'uuid' })
  turnId!: string;

  @ManyToOne(() => RewardTurnEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'turn_id' })
  turn?: RewardTurnEntity;

  @Column({ type: 'text' })
  component!: string;

  @Column({ name: 'labeller_version', type: 'text' })
  labellerVersion!: string;

  @Column({ type: 'text' })
  status!: RewardLabelStatus;

  @Column({ type: 'double precision', nullable: true })
  value!: number | null;

  @Column({ type: 'text', nullable: true })
  label!: string | null;

  @Column({ name: 'judge_model', type: 'text', nullable: true })
  judgeModel!: string | null;

  @Column({ name: 'prompt_version', type: 'text', nullable: true })
  promptVersion!: string | null;

  /** The judge's whole answer, reasoning included, for audits and re-parsing. */
  @Column({ name: 'raw_output', type: 'text', nullable: true })
  rawOutput!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** Component specifics: gate failures, the emotion score after the turn, the implicit signals used. */
  @Column({ type: 'jsonb', nullable: true })
  details!: Record<string, unknown> | null;

  /** How many times its judge was asked (a failed label is retried a few times, LABEL_RETRY_*). */
  @Column({ type: 'integer', default: 1 })
  attempts!: number;

  @Column({ name: 'attempted_at', type: 'timestamptz', default: () => 'now()' })
  attemptedAt!: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
