import { generateApiKey, hashApiKey } from '@echoloop/platform';
import { ApiKeyEntity, type ApiKeyService, type Role } from '@echoloop/persistence';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { IsNull, MoreThan, type DataSource } from 'typeorm';

const YEAR_MS = 365 * 86_400_000;

/** What a service key may do: roles as an experimenter's, on these services only. */
export interface ServiceKeySpec {
  name: string;
  roles: Role[];
  services: ApiKeyService[];
}

/**
 * A service's own API key on a local install: minted once, kept in a file only the owner reads, minted again when
 * the stored one no longer works. tools/stack/apps.sh hands it to the service that calls with it. True when minted.
 */
export async function ensureServiceKey(db: DataSource, file: string, spec: ServiceKeySpec): Promise<boolean> {
  const keys = db.getRepository(ApiKeyEntity);
  if (existsSync(file)) {
    const secret = readFileSync(file, 'utf8').trim();
    const valid = await keys.existsBy({
      keyHash: hashApiKey(secret),
      revokedAt: IsNull(),
      expiresAt: MoreThan(new Date(Date.now() + 7 * 86_400_000)),
    });
    if (valid) return false;
  }
  const { secret, hash, prefix } = generateApiKey();
  await keys.insert({
    name: spec.name,
    keyHash: hash,
    prefix,
    roles: spec.roles,
    services: spec.services,
    expiresAt: new Date(Date.now() + YEAR_MS),
  });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return true;
}

/** The rl-orchestrator's key (an experimenter's, for the gateway, the eval-runner and the labeller). */
export const ensureOrchestratorKey = (db: DataSource, file: string): Promise<boolean> =>
  ensureServiceKey(db, file, {
    name: 'rl-orchestrator (local install)',
    roles: ['experimenter'],
    services: ['chat-gateway', 'eval-runner', 'reward-labeller', 'rl-orchestrator'],
  });

/**
 * The gateway's keys for the staff services it forwards to (RL jobs, evaluations): an experimenter's, each scoped
 * to that one service. The gateway checks its users' roles itself before it forwards.
 */
export const ensureGatewayKey = (
  db: DataSource,
  file: string,
  service: 'rl-orchestrator' | 'eval-runner',
): Promise<boolean> =>
  ensureServiceKey(db, file, {
    name: `chat-gateway to ${service} (local install)`,
    roles: ['experimenter'],
    services: [service],
  });
