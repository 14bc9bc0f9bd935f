import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const ROLES = ['user', 'experimenter', 'analyst', 'admin'] as const;
export type Role = (typeof ROLES)[number];

@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Stored lower-cased; unique. */
  @Column({ type: 'text', unique: true })
  email!: string;

  /** Null for accounts that cannot log in with a password (service accounts). */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash!: string | null;

  @Column({ name: 'display_name', type: 'text' })
  displayName!: string;

  @Column({ type: 'text', array: true, default: () => "'{user}'" })
  roles!: Role[];

  /** Set by an admin: the account keeps its data but cannot sign in, and its sessions end at once. */
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true })
  disabledAt!: Date | null;

  /**
   * Whether the user's conversations may be used to train models (exports, RL datasets); null when the user never
   * chose, and the configured default applies.
   */
  @Column({ name: 'training_consent', type: 'boolean', nullable: true })
  trainingConsent!: boolean | null;

  /**
   * A simulated user (the RL loop's, played by the sentient simulator), never a person: its turns stay out of
   * exports, turn listings and RL datasets unless they ask for the simulated population by name.
   */
  @Column({ type: 'boolean', default: false })
  simulated!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
