import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { CheckpointEntity } from './checkpoint.entity';

export const ADAPTER_PLACEMENT_STATES = ['loaded', 'missing', 'failed'] as const;
/** `loaded`: listed by the endpoint; `missing`: wanted but not there (endpoint away or restarted); `failed`: refused. */
export type AdapterPlacementState = (typeof ADAPTER_PLACEMENT_STATES)[number];

/**
 * Where a checkpoint's LoRA adapter is served, as the adapter reconciler last saw it on each endpoint it must be
 * served from. The desired state is the checkpoints and experiments themselves; this is the observed one.
 */
@Entity({ name: 'adapter_placements' })
export class AdapterPlacementEntity {
  @PrimaryColumn({ name: 'checkpoint_id', type: 'text', primaryKeyConstraintName: 'PK_adapter_placements' })
  checkpointId!: string;

  @PrimaryColumn({ name: 'base_url', type: 'text', primaryKeyConstraintName: 'PK_adapter_placements' })
  baseUrl!: string;

  @ManyToOne(() => CheckpointEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'checkpoint_id', foreignKeyConstraintName: 'FK_adapter_placements_checkpoint_id' })
  checkpoint?: CheckpointEntity;

  @Column({ type: 'text' })
  state!: AdapterPlacementState;

  /** Why it is not loaded: the endpoint's own answer, or that it was away. */
  @Column({ type: 'text', nullable: true })
  detail!: string | null;

  @UpdateDateColumn({ name: 'observed_at', type: 'timestamptz' })
  observedAt!: Date;
}
