import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const DEAD_LETTER_STATUSES = ['parked', 'replayed', 'dropped'] as const;
export type DeadLetterStatus = (typeof DEAD_LETTER_STATUSES)[number];

/**
 * A message a consumer parked on a `<topic>.dlq` topic, mirrored from Kafka so that operators can list, inspect,
 * replay or drop it; `(topic, partition, offset)` names it on Kafka, so the mirror writes each one once.
 */
@Entity({ name: 'dead_letters' })
@Index('dead_letters_message_key', ['topic', 'partition', 'offset'], { unique: true })
@Index('dead_letters_status_idx', ['status', 'id'])
@Index('dead_letters_user_idx', ['userId'], { where: 'user_id IS NOT NULL' })
export class DeadLetterEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint' })
  id!: string;

  /** The dead-letter topic (`<original topic>.dlq`). */
  @Column({ type: 'text' })
  topic!: string;

  @Column({ type: 'integer' })
  partition!: number;

  @Column({ type: 'bigint' })
  offset!: string;

  @Column({ name: 'original_topic', type: 'text' })
  originalTopic!: string;

  @Column({ name: 'message_key', type: 'text', nullable: true })
  messageKey!: string | null;

  /** The message's bytes as they were parked (they may not be JSON, or even text), so a replay sends them again. */
  @Column({ type: 'bytea' })
  value!: Buffer;

  /** The message's own headers, without the `dlq-*` ones (those are the columns below). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  headers!: Record<string, string>;

  /** `invalid` (never decodable against its contract) or `failed` (its handler kept failing). */
  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'text' })
  error!: string;

  @Column({ name: 'consumer_group', type: 'text' })
  consumerGroup!: string;

  @Column({ type: 'integer' })
  attempts!: number;

  @Column({ name: 'failed_at', type: 'timestamptz' })
  failedAt!: Date;

  /** Whose event it is, when the message names a user: erasure removes it with the account. */
  @Column({ name: 'user_id', type: 'uuid', nullable: true })
  userId!: string | null;

  @Column({ type: 'text', default: 'parked' })
  status!: DeadLetterStatus;

  @Column({ name: 'resolved_at', type: 'timestamptz', nullable: true })
  resolvedAt!: Date | null;

  /** Who replayed or dropped it: a user id, or `key:<id>` for a staff key. */
  @Column({ name: 'resolved_by', type: 'text', nullable: true })
  resolvedBy!: string | null;

  /** The event id that went back to the original topic, when replayed. */
  @Column({ name: 'replayed_event_id', type: 'uuid', nullable: true })
  replayedEventId!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
