import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ExperimentEntity } from './experiment.entity';
import { UserEntity } from './user.entity';

/** A user's arm, recorded at first exposure and kept for the experiment's life, whatever the weights become. */
@Entity({ name: 'experiment_assignments' })
@Index('experiment_assignments_arm', ['experimentId', 'armId'])
export class ExperimentAssignmentEntity {
  @PrimaryColumn({ name: 'experiment_id', type: 'uuid' })
  experimentId!: string;

  @ManyToOne(() => ExperimentEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'experiment_id' })
  experiment?: ExperimentEntity;

  @PrimaryColumn({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ name: 'arm_id', type: 'text' })
  armId!: string;

  @CreateDateColumn({ name: 'exposed_at', type: 'timestamptz' })
  exposedAt!: Date;
}
