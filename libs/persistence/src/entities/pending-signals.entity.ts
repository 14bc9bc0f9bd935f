import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { TurnSignals } from './reward-turn.entity';

/**
 * Feedback the labeller consumed before the turn it is about (feedback and turns are separate topics): held here
 * and merged into the turn's signals when the turn arrives, never dropped. Rows whose turn never comes (the reply
 * was deleted) are purged after a while.
 */
@Entity({ name: 'pending_signals' })
@Index('pending_signals_received', ['receivedAt'])
export class PendingSignalsEntity {
  @PrimaryColumn({ name: 'turn_id', type: 'uuid' })
  turnId!: string;

  @Column({ type: 'jsonb' })
  signals!: TurnSignals;

  @CreateDateColumn({ name: 'received_at', type: 'timestamptz' })
  receivedAt!: Date;
}
