import type { ApiKeyEntity, ApiKeyService as ServiceName, Role } from '@echoloop/persistence';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../clock';
import { apiKeyErrors as errors } from './api-key-errors';
import type { ApiKeyPolicy } from './api-key-policy';
import { ApiKeyRepository } from './api-key.repository';
import type { CreateApiKeyInput, CreatePersonalKeyInput, RotateApiKeyInput } from './api-key.schemas';
import { API_KEY_PREFIX, generateApiKey, hashApiKey, PERSONAL_KEY_PREFIX } from './api-key-secret';
import { API_KEY_POLICY, API_KEY_SERVICE_NAME } from './api-keys.tokens';

/** A service acting with an API key; `userId` is the key's id (what audit trails record). */
export interface ApiKeyPrincipal {
  userId: string;
  roles: readonly Role[];
  kind: 'service';
}

/** A user acting through their personal key. */
export interface PersonalKeyPrincipal {
  userId: string;
  keyId: string;
  keyName: string;
  personaGuidance: boolean;
}

/** Live personal keys one user may hold: enough for every client they use, not a key per request. */
export const MAX_PERSONAL_KEYS = 20;

/** Whoever asks to mint or rotate a key, as authenticated by the app. */
export interface Minter {
  userId: string;
  kind: 'user' | 'service';
}

const DAY_MS = 86_400_000;
/** last_used_at is a hint for people, not an audit log: one write a minute per key is plenty. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * API keys for every app: minting and rotation (admins, never more power than they hold), and per-request
 * authorization of a key for this app's service name and the route's roles. Nothing is cached, so revocation,
 * expiry and the end of a rotation's grace hold at once in every app.
 */
@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(API_KEY_SERVICE_NAME) private readonly service: ServiceName,
    @Inject(API_KEY_POLICY) private readonly policy: ApiKeyPolicy,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The key's principal when it may call a route needing one of `required` here; throws 401 or 403 otherwise. */
  async authorize(secret: unknown, required: readonly Role[] | undefined): Promise<ApiKeyPrincipal> {
    const { row, now } = await this.liveKey(secret, API_KEY_PREFIX);
    if (row.kind !== 'service') throw errors.personalKey();
    if (!required?.length) throw errors.userRoute();
    // Keys never hold admin; should one hold it anyway (a hand-edited row), it grants nothing extra.
    if (!required.some((role) => role !== 'admin' && row.roles.includes(role)))
      throw errors.wrongRole(required);
    this.recordUse(row, now);
    return { userId: row.id, roles: row.roles.filter((role) => role !== 'admin'), kind: 'service' };
  }

  /** A personal key (a Bearer token with its own prefix): its owner, to act as on the routes open to such keys. */
  async authorizePersonal(secret: unknown): Promise<PersonalKeyPrincipal> {
    const { row, now } = await this.liveKey(secret, PERSONAL_KEY_PREFIX);
    if (row.kind !== 'personal' || !row.createdBy) throw errors.invalid();
    this.recordUse(row, now);
    return { userId: row.createdBy, keyId: row.id, keyName: row.name, personaGuidance: row.personaGuidance };
  }

  /**
   * A key that can be used now: known, not revoked or expired, not a rotated-out secret past its grace, scoped to
   * this app, and still backed by its owner (a live account holding what the key holds). Nothing is cached, so an
   * owner disabled, erased or demoted takes their keys' power with them on the next request.
   */
  private async liveKey(secret: unknown, prefix: string): Promise<{ row: ApiKeyEntity; now: Date }> {
    if (typeof secret !== 'string' || !secret.startsWith(prefix)) throw errors.invalid();
    const hash = hashApiKey(secret);
    const row = await this.keys.findBySecretHash(hash);
    if (!row) throw errors.invalid();
    const now = this.clock();
    if (row.revokedAt) throw errors.revoked();
    if (row.expiresAt <= now) throw errors.expired();
    if (row.keyHash !== hash && !(row.previousKeyExpiresAt && row.previousKeyExpiresAt > now)) {
      throw errors.rotated();
    }
    if (!row.services.includes(this.service)) throw errors.wrongService(this.service);
    if (row.createdBy && !ownerBacks(row, await this.keys.currentRoles(row.createdBy))) {
      throw errors.ownerInactive();
    }
    return { row, now };
  }

  async mint(minter: Minter, input: CreateApiKeyInput) {
    const minterId = await this.assertMayMint(minter, input.roles);
    const now = this.clock();
    const expiresAt = this.expiry(now, input.expiresAt);
    const { secret, hash, prefix } = generateApiKey();
    const saved = await this.keys.insert({
      name: input.name,
      roles: input.roles,
      services: input.services,
      createdBy: minterId,
      keyHash: hash,
      prefix,
      expiresAt,
    });
    return { ...view(saved, now), key: secret };
  }

  /** A new secret for the same key; the old one keeps working for the grace period (never past its expiry). */
  async rotate(minter: Minter, id: string, input: RotateApiKeyInput) {
    const row = await this.keys.findLive(id);
    if (!row) throw errors.notFound();
    await this.assertMayMint(minter, row.roles);
    const now = this.clock();
    const expiresAt = this.expiry(now, input?.expiresAt);
    const graceEnds = new Date(
      Math.min(now.getTime() + this.policy.rotationGraceSeconds * 1_000, row.expiresAt.getTime()),
    );
    const { secret, hash, prefix } = generateApiKey();
    const rotated = await this.keys.rotate({
      id,
      currentHash: row.keyHash,
      keyHash: hash,
      prefix,
      previousKeyExpiresAt: graceEnds,
      expiresAt,
      rotatedAt: now,
    });
    if (!rotated) throw errors.changed();
    const updated = await this.keys.findLive(id);
    if (!updated) throw errors.changed();
    return { ...view(updated, now), key: secret };
  }

  /** The service keys (personal keys are their owners' to list). */
  async list() {
    const now = this.clock();
    return (await this.keys.list('service')).map((row) => view(row, now));
  }

  /** Any key, a personal one included (an admin ends a leaked key). */
  async revoke(id: string): Promise<void> {
    if (!(await this.keys.revoke(id, this.clock()))) throw errors.notFound();
  }

  /** A user's own key for OpenAI-compatible clients: chatting as them, nothing else. */
  async mintPersonal(userId: string, input: CreatePersonalKeyInput) {
    if (!(await this.keys.currentRoles(userId))) throw errors.noAccount();
    const now = this.clock();
    if ((await this.keys.countLivePersonal(userId, now)) >= MAX_PERSONAL_KEYS) {
      throw errors.tooManyPersonal(MAX_PERSONAL_KEYS);
    }
    const expiresAt = this.expiry(now, input.expiresAt);
    const { secret, hash, prefix } = generateApiKey(PERSONAL_KEY_PREFIX);
    const saved = await this.keys.insert({
      name: input.name,
      kind: 'personal',
      personaGuidance: input.personaGuidance,
      roles: ['user'],
      services: ['chat-gateway'],
      createdBy: userId,
      keyHash: hash,
      prefix,
      expiresAt,
    });
    return { ...personalView(saved, now), key: secret };
  }

  async listPersonal(userId: string) {
    const now = this.clock();
    return (await this.keys.list('personal', userId)).map((row) => personalView(row, now));
  }

  /** Only the owner's own key: another user's is a 404, as if it did not exist. */
  async revokePersonal(userId: string, id: string): Promise<void> {
    if (!(await this.keys.revoke(id, this.clock(), userId))) throw errors.notFound();
  }

  /** Only a person who is an admin now (not per an older token), and only roles they hold themselves. */
  private async assertMayMint(minter: Minter, roles: readonly Role[]): Promise<string> {
    if (minter.kind !== 'user') throw errors.keysCannotMint();
    const current = await this.keys.currentRoles(minter.userId);
    if (!current) throw errors.noAccount();
    if (!current.includes('admin')) throw errors.notAdmin();
    const missing = roles.filter((role) => !current.includes(role));
    if (missing.length > 0) throw errors.exceedsMinter(missing);
    return minter.userId;
  }

  private expiry(now: Date, requested: Date | undefined): Date {
    const latest = now.getTime() + this.policy.maxTtlDays * DAY_MS;
    if (!requested) return new Date(Math.min(now.getTime() + this.policy.defaultTtlDays * DAY_MS, latest));
    if (requested <= now) throw errors.badExpiry('must be in the future');
    if (requested.getTime() > latest) {
      throw errors.badExpiry(`must be at most ${this.policy.maxTtlDays} days from now`);
    }
    return requested;
  }

  private recordUse(row: ApiKeyEntity, now: Date): void {
    const last = Math.max(this.lastWritten.get(row.id) ?? 0, row.lastUsedAt?.getTime() ?? 0);
    if (now.getTime() - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(row.id, now.getTime());
    this.keys
      .touch(row.id, now, new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS))
      .catch((error: unknown) =>
        this.logger.warn(`last_used_at not recorded for key ${row.id}: ${String(error)}`),
      );
  }
}

/**
 * Whether the key's owner still grants what it holds: a live account (not disabled, not erased) and, for a
 * service key, still an admin holding each of its roles, as minting required.
 */
function ownerBacks(row: ApiKeyEntity, ownerRoles: readonly Role[] | null): boolean {
  if (!ownerRoles) return false;
  if (row.kind === 'personal') return true;
  return ownerRoles.includes('admin') && row.roles.every((role) => ownerRoles.includes(role));
}

/** What a user sees of their personal key. */
function personalView(row: ApiKeyEntity, now: Date) {
  const { id, name, prefix, status, createdAt, expiresAt, revokedAt, lastUsedAt } = view(row, now);
  return {
    id,
    name,
    prefix,
    status,
    personaGuidance: row.personaGuidance,
    createdAt,
    expiresAt,
    revokedAt,
    lastUsedAt,
  };
}

/** What people see of a key: never its hash. */
function view(row: ApiKeyEntity, now: Date) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    roles: row.roles,
    services: row.services,
    status: row.revokedAt ? 'revoked' : row.expiresAt <= now ? 'expired' : 'active',
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    rotatedAt: row.rotatedAt,
    previousSecretValidUntil:
      row.previousKeyExpiresAt && row.previousKeyExpiresAt > now ? row.previousKeyExpiresAt : null,
    lastUsedAt: row.lastUsedAt,
  };
}
