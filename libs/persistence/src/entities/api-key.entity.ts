import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from './user.entity';

/** The apps that accept API keys; a key names those it may be used on. */
export const API_KEY_SERVICES = [
  'chat-gateway',
  'reward-labeller',
  'eval-runner',
  'rl-orchestrator',
] as const;
export type ApiKeyService = (typeof API_KEY_SERVICES)[number];

/** `service`: a staff or app credential (x-api-key); `personal`: a user's own key for OpenAI-compatible clients. */
export const API_KEY_KINDS = ['service', 'personal'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/**
 * A service's credential, scoped to roles and services, with an expiry. Only the SHA-256 of the secret is stored;
 * the secret itself is shown once, when the key is created or rotated.
 */
@Entity({ name: 'api_keys' })
@Index('api_keys_personal_owner_idx', ['createdBy'], { where: "kind = 'personal'" })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', default: 'service' })
  kind!: ApiKeyKind;

  /** A personal key's choice: whether replies to its client are adapted to the owner's inferred personality. */
  @Column({ name: 'persona_guidance', type: 'boolean', default: false })
  personaGuidance!: boolean;

  @Column({ name: 'key_hash', type: 'text', unique: true })
  keyHash!: string;

  /** The key's first characters, so people can tell keys apart without the secret. */
  @Column({ type: 'text' })
  prefix!: string;

  @Column({ type: 'text', array: true })
  roles!: Role[];

  @Column({ type: 'text', array: true })
  services!: ApiKeyService[];

  /** Whoever minted the key (its owner): the key holds only while they do. Null for keys the seed mints. */
  @Column({ name: 'created_by', type: 'uuid', nullable: true })
  createdBy!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'rotated_at', type: 'timestamptz', nullable: true })
  rotatedAt!: Date | null;

  /** The secret before the last rotation, accepted until previousKeyExpiresAt (the rotation's grace period). */
  @Index('api_keys_previous_key_hash_idx')
  @Column({ name: 'previous_key_hash', type: 'text', nullable: true })
  previousKeyHash!: string | null;

  @Column({ name: 'previous_key_expires_at', type: 'timestamptz', nullable: true })
  previousKeyExpiresAt!: Date | null;

  /** Written at most about once a minute per key, not on every request. */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
