import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Transactional outbox: an event is written in the same transaction as the rows it describes, and a relay
 * publishes it to Kafka afterwards. `id` is monotonic, so publishing in id order keeps per-key order.
 */
@Entity({ name: 'outbox' })
@Index('outbox_unpublished_idx', ['id'], { where: 'published_at IS NULL' })
export class OutboxEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'event_id', type: 'uuid', unique: true })
  eventId!: string;

  @Column({ type: 'text' })
  topic!: string;

  @Column({ name: 'message_key', type: 'text' })
  messageKey!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  headers!: Record<string, string>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt!: Date | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;
}
