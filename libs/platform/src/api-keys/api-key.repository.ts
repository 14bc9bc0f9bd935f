import { ApiKeyEntity, type ApiKeyKind, type Role, UserEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, MoreThan, type Repository } from 'typeorm';

export type NewApiKey = Pick<
  ApiKeyEntity,
  'name' | 'keyHash' | 'prefix' | 'roles' | 'services' | 'createdBy' | 'expiresAt'
> &
  Partial<Pick<ApiKeyEntity, 'kind' | 'personaGuidance'>>;

export interface Rotation {
  id: string;
  currentHash: string;
  keyHash: string;
  prefix: string;
  previousKeyExpiresAt: Date;
  expiresAt: Date;
  rotatedAt: Date;
}

/** The api_keys table, and the current roles of whoever mints a key. */
@Injectable()
export class ApiKeyRepository {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  /** The key whose current or previous (rotated-out) secret has this digest; both columns are indexed. */
  findBySecretHash(hash: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOne({ where: [{ keyHash: hash }, { previousKeyHash: hash }] });
  }

  findLive(id: string): Promise<ApiKeyEntity | null> {
    return this.keys.findOneBy({ id, revokedAt: IsNull() });
  }

  async insert(key: NewApiKey): Promise<ApiKeyEntity> {
    return this.keys.save(this.keys.create(key));
  }

  /** Keys of one kind, oldest first; personal keys only of their owner. */
  list(kind: ApiKeyKind, owner?: string): Promise<ApiKeyEntity[]> {
    return this.keys.find({
      where: { kind, ...(owner !== undefined && { createdBy: owner }) },
      order: { createdAt: 'ASC' },
    });
  }

  /** How many of the owner's personal keys can still be used. */
  countLivePersonal(owner: string, now: Date): Promise<number> {
    return this.keys.countBy({
      kind: 'personal',
      createdBy: owner,
      revokedAt: IsNull(),
      expiresAt: MoreThan(now),
    });
  }

  /** False when the key was revoked or rotated by someone else in the meantime. */
  async rotate(rotation: Rotation): Promise<boolean> {
    const result = await this.keys.update(
      { id: rotation.id, keyHash: rotation.currentHash, revokedAt: IsNull() },
      {
        keyHash: rotation.keyHash,
        prefix: rotation.prefix,
        previousKeyHash: rotation.currentHash,
        previousKeyExpiresAt: rotation.previousKeyExpiresAt,
        expiresAt: rotation.expiresAt,
        rotatedAt: rotation.rotatedAt,
      },
    );
    return (result.affected ?? 0) > 0;
  }

  /** Revokes a live key; with `owner`, only that owner's personal key. */
  async revoke(id: string, at: Date, owner?: string): Promise<boolean> {
    const result = await this.keys.update(
      {
        id,
        revokedAt: IsNull(),
        ...(owner !== undefined && { kind: 'personal' as const, createdBy: owner }),
      },
      { revokedAt: at },
    );
    return (result.affected ?? 0) > 0;
  }

  /** Records a use unless another replica recorded one since `staleBefore`. */
  async touch(id: string, at: Date, staleBefore: Date): Promise<void> {
    await this.keys
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: at })
      .where('id = :id', { id })
      .andWhere('(last_used_at IS NULL OR last_used_at < :staleBefore)', { staleBefore })
      .execute();
  }

  /** The roles of a live (not disabled) account, read now rather than from a token; null when there is none. */
  async currentRoles(userId: string): Promise<readonly Role[] | null> {
    const user = await this.users.findOneBy({ id: userId, disabledAt: IsNull() });
    return user?.roles ?? null;
  }
}
