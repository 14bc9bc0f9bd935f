import { generateApiKey } from '@echoloop/platform';
import type { ApiKeyService, Role } from '@echoloop/persistence';
import type { DataSource } from 'typeorm';

/** Stores an API key as the gateway would mint it (no minter); returns its id and secret. */
export async function insertApiKey(
  db: DataSource,
  options: { roles: Role[]; services: ApiKeyService[]; name?: string; expiresAt?: Date },
): Promise<{ id: string; key: string }> {
  const { secret, hash, prefix } = generateApiKey();
  const [row] = (await db.query(
    `INSERT INTO api_keys (name, key_hash, prefix, roles, services, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      options.name ?? 'test',
      hash,
      prefix,
      options.roles,
      options.services,
      options.expiresAt ?? new Date(Date.now() + 86_400_000),
    ],
  )) as { id: string }[];
  if (!row) throw new Error('api key not stored');
  return { id: row.id, key: secret };
}
