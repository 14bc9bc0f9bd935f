import { generateApiKey, hashApiKey } from '@echoloop/platform';
import { ApiKeyEntity } from '@echoloop/persistence';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { IsNull, MoreThan, type DataSource } from 'typeorm';

const YEAR_MS = 365 * 86_400_000;

/**
 * The rl-orchestrator's own API key on a local install (an experimenter's, for the gateway, the eval-runner and the
 * labeller): minted once, kept in a file only the owner reads, minted again when the stored one no longer works.
 * tools/stack/apps.sh hands it to the orchestrator as SERVICE_API_KEY.
 */
export async function ensureOrchestratorKey(db: DataSource, file: string): Promise<boolean> {
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
    name: 'rl-orchestrator (local install)',
    keyHash: hash,
    prefix,
    roles: ['experimenter'],
    services: ['chat-gateway', 'eval-runner', 'reward-labeller', 'rl-orchestrator'],
    expiresAt: new Date(Date.now() + YEAR_MS),
  });
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return true;
}
