import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

/**
 * A user's turn limits shared by every gateway process: the concurrent-stream slots held now (slot id → expiry in
 * epoch ms; a slot a dead process held expires by itself) and the rate-limit token bucket. Taken in the turn's one
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
}
