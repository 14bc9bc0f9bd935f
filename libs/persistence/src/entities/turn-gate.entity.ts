import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * A user's turn limits shared by every gateway process: the concurrent-stream slots held now (slot id → expiry in
 * epoch ms; a slot a dead process held expires by itself), the rate-limit token bucket and the daily quota. Taken in the turn's one
 * statement (a row lock serialises one user's turns), released when the reply ends.
 */
@Entity({ name: 'turn_gates' })
export class TurnGateEntity {
  @PrimaryColumn({ name: 'user_id', type: 'uuid', primaryKeyConstraintName: 'PK_turn_gates_user_id' })
  userId!: string;

  /** Erased with the account, like everything else of the user's. */
  @OneToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'FK_turn_gates_user_id' })
  user?: UserEntity;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  slots!: Record<string, number>;

  @Column({ type: 'double precision' })
  tokens!: number;

  @Column({ name: 'refilled_at', type: 'timestamptz', default: () => 'now()' })
  refilledAt!: Date;

  /** The UTC day `quotaUsed` counts; another day starts from zero. */
  @Column({ name: 'quota_day', type: 'date', nullable: true })
  quotaDay!: string | null;

  /** Turns (messages and regenerations) taken on `quotaDay`. */
  @Column({ name: 'quota_used', type: 'integer', default: 0 })
  quotaUsed!: number;
}
