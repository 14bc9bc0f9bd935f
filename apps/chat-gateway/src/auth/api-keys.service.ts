import { ApiKeyEntity, ROLES, type Role } from '@echoloop/persistence';
import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { IsNull, type Repository } from 'typeorm';
import { z } from 'zod';
import { TtlCache } from '../common/ttl-cache';
import type { Principal } from './principal';

export const createApiKeySchema = z
  .object({ name: z.string().trim().min(1).max(100), roles: z.array(z.enum(ROLES)).min(1) })
  .strict();

const KEY_PREFIX = 'elk_';
const hash = (key: string) => createHash('sha256').update(key).digest('hex');

/** Service credentials. A key is shown once; afterwards only its hash and first characters exist. */
@Injectable()
export class ApiKeysService {
  /** Keys are checked on every service call; other gateway replicas see a revocation within the ttl. */
  private readonly principals = new TtlCache<string, Principal | undefined>(30_000);

  constructor(@InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>) {}

  async create(name: string, roles: Role[], createdBy: string) {
    const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    const saved = await this.keys.save(
      this.keys.create({ name, roles, createdBy, keyHash: hash(key), prefix: key.slice(0, 10) }),
    );
    return { id: saved.id, name, roles, prefix: saved.prefix, key, createdAt: saved.createdAt };
  }

  async list() {
    const rows = await this.keys.find({ order: { createdAt: 'ASC' } });
    return rows.map(({ id, name, roles, prefix, createdAt, revokedAt }) => ({
      id,
      name,
      roles,
      prefix,
      createdAt,
      revokedAt,
    }));
  }

  async revoke(id: string): Promise<void> {
    const row = await this.keys.findOneBy({ id, revokedAt: IsNull() });
    if (!row) throw new NotFoundException({ error: { code: 'not_found', message: 'API key not found' } });
    await this.keys.update({ id }, { revokedAt: new Date() });
    this.principals.delete(row.keyHash);
  }

  /** The service principal for a live key; undefined for an unknown or revoked one. */
  authenticate(key: string): Promise<Principal | undefined> {
    if (!key.startsWith(KEY_PREFIX)) return Promise.resolve(undefined);
    return this.principals.get(hash(key), async (keyHash) => {
      const row = await this.keys.findOneBy({ keyHash, revokedAt: IsNull() });
      return row ? { userId: row.id, roles: row.roles, kind: 'service' } : undefined;
    });
  }
}
