import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from './user.entity';

/** A service's credential. Only the SHA-256 of the key is stored; the key itself is shown once, at creation. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash!: string;

  /** The key's first characters, so people can tell keys apart without the secret. */
  @Column({ type: 'text' })
  prefix!: string;

  @Column({ type: 'text', array: true })
  roles!: Role[];

  @Column({ name: 'created_by', type: 'uuid', nullable: true })
  createdBy!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;
}
