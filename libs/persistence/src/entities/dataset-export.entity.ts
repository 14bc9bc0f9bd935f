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
import { UserEntity } from './user.entity';

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'erased'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];
/** Who made an export: the API's runner, or the command line (`npm run dataset:export`). */
export const EXPORT_ORIGINS = ['api', 'cli'] as const;
export type ExportOrigin = (typeof EXPORT_ORIGINS)[number];

/**
 * A dataset export, asked for over the API (run in the background) or made by the CLI; its files in the artifact
 * store either way, so that erasing a user it holds reaches them.
 */
@Entity({ name: 'dataset_exports' })
@Index('dataset_exports_queued', ['createdAt'], { where: `status = 'queued'` })
export class DatasetExportEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'text' })
  format!: string;

  @Column({ type: 'jsonb' })
  filters!: Record<string, unknown>;

  @Column({ type: 'text', default: 'queued' })
  status!: ExportStatus;

  @Column({ type: 'text', default: 'api' })
  origin!: ExportOrigin;

  /** Turns read so far, of `total` (progress). */
  @Column({ type: 'integer', default: 0 })
  read!: number;

  @Column({ type: 'integer', nullable: true })
  total!: number | null;

  @Column({ type: 'integer', nullable: true })
  rows!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  manifest!: Record<string, unknown> | null;

  /** A code, never user text. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ name: 'requested_by', type: 'uuid', nullable: true })
  requestedBy!: string | null;

  @ManyToOne(() => UserEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'requested_by' })
  requester?: UserEntity;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  /** Renewed while an export runs: a running export whose heartbeat stopped (its process died) is run again. */
  @Column({ name: 'heartbeat_at', type: 'timestamptz', nullable: true })
  heartbeatAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}

/** Which users an export holds: erasing a user erases every stored export holding them. */
@Entity({ name: 'dataset_export_users' })
@Index('dataset_export_users_user', ['userId'])
export class DatasetExportUserEntity {
  @PrimaryColumn({ name: 'export_id', type: 'uuid' })
  exportId!: string;

  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => DatasetExportEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'export_id' })
  export?: DatasetExportEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;
}
