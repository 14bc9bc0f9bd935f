import type { ApiKeyEntity, ApiKeyService, Role } from '@echoloop/persistence';
import { HttpException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CLOCK } from '../clock';
import type { ApiKeyPolicy } from './api-key-policy';
import { ApiKeyRepository, type NewApiKey, type Rotation } from './api-key.repository';
import { createApiKeySchema } from './api-key.schemas';
import { hashApiKey } from './api-key-secret';
import { ApiKeysService, LAST_USED_WRITE_INTERVAL_MS, MAX_PERSONAL_KEYS } from './api-keys.service';
import { API_KEY_POLICY, API_KEY_SERVICE_NAME } from './api-keys.tokens';

const DAY = 86_400_000;
const POLICY: ApiKeyPolicy = { defaultTtlDays: 30, maxTtlDays: 90, rotationGraceSeconds: 60 };

/** The api_keys and users tables in memory, with the repository's semantics. */
class FakeRepository {
  rows: ApiKeyEntity[] = [];
  users = new Map<string, Role[]>();
  touches: { id: string; at: Date }[] = [];

  async findBySecretHash(hash: string) {
    return this.rows.find((r) => r.keyHash === hash || r.previousKeyHash === hash) ?? null;
  }
  async findLive(id: string) {
    return this.rows.find((r) => r.id === id && !r.revokedAt) ?? null;
  }
  async insert(key: NewApiKey) {
    const row = {
      kind: 'service',
      personaGuidance: false,
      ...key,
      id: `key-${this.rows.length + 1}`,
      createdAt: new Date(),
      revokedAt: null,
      rotatedAt: null,
      previousKeyHash: null,
      previousKeyExpiresAt: null,
      lastUsedAt: null,
    } as ApiKeyEntity;
    this.rows.push(row);
    return row;
  }
  async list(kind: string, owner?: string) {
    return this.rows.filter((r) => r.kind === kind && (owner === undefined || r.createdBy === owner));
  }
  async countLivePersonal(owner: string, now: Date) {
    return this.rows.filter(
      (r) => r.kind === 'personal' && r.createdBy === owner && !r.revokedAt && r.expiresAt > now,
    ).length;
  }
  async rotate(r: Rotation) {
    const row = this.rows.find((k) => k.id === r.id && k.keyHash === r.currentHash && !k.revokedAt);
    if (!row) return false;
    Object.assign(row, {
      keyHash: r.keyHash,
      prefix: r.prefix,
      previousKeyHash: r.currentHash,
      previousKeyExpiresAt: r.previousKeyExpiresAt,
      expiresAt: r.expiresAt,
      rotatedAt: r.rotatedAt,
    });
    return true;
  }
  async revoke(id: string, at: Date, owner?: string) {
    const row = await this.findLive(id);
    if (!row || (owner !== undefined && (row.kind !== 'personal' || row.createdBy !== owner))) return false;
    row.revokedAt = at;
    return true;
  }
  async touch(id: string, at: Date) {
    this.touches.push({ id, at });
    const row = this.rows.find((r) => r.id === id);
    if (row) row.lastUsedAt = at;
  }
  async currentRoles(userId: string) {
    return this.users.get(userId) ?? null;
  }
}

async function setup(service: ApiKeyService = 'reward-labeller') {
  const repo = new FakeRepository();
  let now = new Date('2026-11-24T10:00:00Z');
  const moduleRef = await Test.createTestingModule({
    providers: [
      ApiKeysService,
      { provide: ApiKeyRepository, useValue: repo },
      { provide: API_KEY_SERVICE_NAME, useValue: service },
      { provide: API_KEY_POLICY, useValue: POLICY },
      { provide: CLOCK, useValue: () => now },
    ],
  }).compile();
  repo.users.set('admin', ['admin', 'experimenter', 'analyst']);
  const keys = moduleRef.get(ApiKeysService);
  const admin = { userId: 'admin', kind: 'user' as const };
  const mint = (input: Record<string, unknown>) =>
    keys.mint(
      admin,
      createApiKeySchema.parse({
        name: 'k',
        roles: ['experimenter'],
        services: ['reward-labeller'],
        ...input,
      }),
    );
  return {
    repo,
    keys,
    admin,
    mint,
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
    now: () => now,
  };
}

/** The HTTP status and error code a call fails with. */
async function failure(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof HttpException)) throw error;
    const body = error.getResponse() as { error: { code: string } };
    return { status: error.getStatus(), code: body.error.code };
  }
  throw new Error('expected a failure');
}

describe('ApiKeysService', () => {
  describe("a key's owner", () => {
    it('takes the power of the keys they minted at once when disabled or erased, demoted, or stripped of a role', async () => {
      for (const change of [
        (t: Awaited<ReturnType<typeof setup>>) => t.repo.users.delete('admin'),
        (t: Awaited<ReturnType<typeof setup>>) => t.repo.users.set('admin', ['experimenter', 'analyst']),
        (t: Awaited<ReturnType<typeof setup>>) => t.repo.users.set('admin', ['admin', 'analyst']),
      ]) {
        const t = await setup();
        const { key } = await t.mint({});
        await expect(t.keys.authorize(key, ['experimenter'])).resolves.toMatchObject({ kind: 'service' });
        change(t);
        expect(await failure(t.keys.authorize(key, ['experimenter']))).toEqual({
          status: 401,
          code: 'api_key_owner_inactive',
        });
      }
    });

    it('leaves keys nobody minted (the seed) and keys whose owner keeps their roles alone', async () => {
      const t = await setup();
      const { key } = await t.mint({});
      t.repo.rows[0]!.createdBy = null;
      t.repo.users.delete('admin');
      await expect(t.keys.authorize(key, ['experimenter'])).resolves.toMatchObject({ kind: 'service' });
    });
  });

  describe('personal keys', () => {
    const personal = { name: 'SillyTavern', personaGuidance: true };

    it("act as their owner, only as a Bearer key, and end with the owner's account", async () => {
      const t = await setup('chat-gateway');
      t.repo.users.set('mia', ['user']);
      const { key, id } = await t.keys.mintPersonal('mia', personal);
      expect(key.startsWith('elp_')).toBe(true);
      await expect(t.keys.authorizePersonal(key)).resolves.toEqual({
        userId: 'mia',
        keyId: id,
        keyName: 'SillyTavern',
        personaGuidance: true,
      });
      expect(await failure(t.keys.authorize(key, ['user']))).toEqual({
        status: 401,
        code: 'api_key_invalid',
      });
      const { key: staff } = await t.mint({ services: ['chat-gateway'] });
      expect(await failure(t.keys.authorizePersonal(staff))).toEqual({
        status: 401,
        code: 'api_key_invalid',
      });
      t.repo.users.delete('mia');
      expect(await failure(t.keys.authorizePersonal(key))).toEqual({
        status: 401,
        code: 'api_key_owner_inactive',
      });
    });

    it("are listed and revoked by their owner only, never in the staff keys' list", async () => {
      const t = await setup('chat-gateway');
      t.repo.users.set('mia', ['user']);
      t.repo.users.set('leo', ['user']);
      const { id } = await t.keys.mintPersonal('mia', personal);
      expect(await t.keys.list()).toEqual([]);
      expect((await t.keys.listPersonal('mia')).map((k) => k.id)).toEqual([id]);
      expect(await t.keys.listPersonal('leo')).toEqual([]);
      expect(await failure(t.keys.revokePersonal('leo', id))).toEqual({ status: 404, code: 'not_found' });
      await t.keys.revokePersonal('mia', id);
      expect((await t.keys.listPersonal('mia'))[0]).toMatchObject({ status: 'revoked' });
    });

    it('are refused to an account that is gone, and bounded per user', async () => {
      const t = await setup('chat-gateway');
      expect(await failure(t.keys.mintPersonal('ghost', personal))).toEqual({
        status: 401,
        code: 'unauthorized',
      });
      t.repo.users.set('mia', ['user']);
      for (let i = 0; i < MAX_PERSONAL_KEYS; i++) await t.keys.mintPersonal('mia', personal);
      expect(await failure(t.keys.mintPersonal('mia', personal))).toEqual({
        status: 409,
        code: 'too_many_api_keys',
      });
    });
  });

  describe('authorize', () => {
    it('accepts a live key scoped to this service with one of the route roles, and names it as a service', async () => {
      const t = await setup();
      const { key, id } = await t.mint({});
      await expect(t.keys.authorize(key, ['experimenter', 'analyst'])).resolves.toEqual({
        userId: id,
        roles: ['experimenter'],
        kind: 'service',
      });
    });

    it('refuses unknown, malformed and missing keys with 401', async () => {
      const t = await setup();
      for (const secret of [undefined, ['elk_a', 'elk_b'], 'not-a-key', 'elk_unknown']) {
        expect(await failure(t.keys.authorize(secret, ['experimenter']))).toEqual({
          status: 401,
          code: 'api_key_invalid',
        });
      }
    });

    it('refuses a key at the instant it expires (injected clock)', async () => {
      const t = await setup();
      const { key, expiresAt } = await t.mint({});
      expect(expiresAt.getTime() - t.now().getTime()).toBe(30 * DAY);
      t.advance(30 * DAY - 1);
      await expect(t.keys.authorize(key, ['experimenter'])).resolves.toBeDefined();
      t.advance(1);
      expect(await failure(t.keys.authorize(key, ['experimenter']))).toEqual({
        status: 401,
        code: 'api_key_expired',
      });
    });

    it('refuses a revoked key on the next request', async () => {
      const t = await setup();
      const { key, id } = await t.mint({});
      await t.keys.authorize(key, ['experimenter']);
      await t.keys.revoke(id);
      expect(await failure(t.keys.authorize(key, ['experimenter']))).toEqual({
        status: 401,
        code: 'api_key_revoked',
      });
      expect(await failure(t.keys.revoke(id))).toEqual({ status: 404, code: 'not_found' });
    });

    it('refuses with 403 a key scoped to other services, a route its roles miss, and routes for users', async () => {
      const t = await setup('eval-runner');
      const labellerOnly = await t.mint({ services: ['reward-labeller'] });
      expect(await failure(t.keys.authorize(labellerOnly.key, ['experimenter']))).toEqual({
        status: 403,
        code: 'api_key_service_not_allowed',
      });
      const analyst = await t.mint({ roles: ['analyst'], services: ['eval-runner'] });
      expect(await failure(t.keys.authorize(analyst.key, ['experimenter']))).toEqual({
        status: 403,
        code: 'api_key_role_not_allowed',
      });
      expect(await failure(t.keys.authorize(analyst.key, undefined))).toEqual({
        status: 403,
        code: 'api_key_route_not_allowed',
      });
    });

    it('gives a hand-edited admin key nothing beyond its other roles', async () => {
      const t = await setup();
      const { key, id } = await t.mint({});
      t.repo.rows.find((r) => r.id === id)!.roles = ['experimenter', 'admin'];
      expect(await failure(t.keys.authorize(key, ['admin']))).toMatchObject({ status: 403 });
      await expect(t.keys.authorize(key, ['experimenter'])).resolves.toMatchObject({
        roles: ['experimenter'],
      });
    });

    it('records the last use at most once a minute per key', async () => {
      const t = await setup();
      const { key } = await t.mint({});
      await t.keys.authorize(key, ['experimenter']);
      t.advance(LAST_USED_WRITE_INTERVAL_MS - 1);
      await t.keys.authorize(key, ['experimenter']);
      await t.keys.authorize(key, ['experimenter']);
      expect(t.repo.touches).toHaveLength(1);
      t.advance(1);
      await t.keys.authorize(key, ['experimenter']);
      expect(t.repo.touches.map((touch) => touch.at)).toEqual([
        new Date('2026-11-24T10:00:00Z'),
        new Date('2026-11-24T10:01:00Z'),
      ]);
      const [listed] = await t.keys.list();
      expect(listed?.lastUsedAt).toEqual(new Date('2026-11-24T10:01:00Z'));
    });
  });

  describe('rotate', () => {
    it('issues a new secret for the same key; the old one works for the grace period, then not', async () => {
      const t = await setup();
      const old = await t.mint({});
      const rotated = await t.keys.rotate(t.admin, old.id, undefined);
      expect(rotated).toMatchObject({ id: old.id, roles: ['experimenter'] });
      expect(rotated.key).not.toBe(old.key);
      expect(rotated.previousSecretValidUntil).toEqual(new Date(t.now().getTime() + 60_000));
      await expect(t.keys.authorize(old.key, ['experimenter'])).resolves.toBeDefined();
      t.advance(60_000);
      expect(await failure(t.keys.authorize(old.key, ['experimenter']))).toEqual({
        status: 401,
        code: 'api_key_rotated',
      });
      await expect(t.keys.authorize(rotated.key, ['experimenter'])).resolves.toBeDefined();
    });

    it('never lets the old secret outlive the key it belonged to', async () => {
      const t = await setup();
      const old = await t.mint({});
      t.advance(30 * DAY - 10_000);
      const rotated = await t.keys.rotate(t.admin, old.id, undefined);
      expect(rotated.previousSecretValidUntil).toEqual(old.expiresAt);
    });

    it('is refused to API keys and to admins lacking the key roles, and for revoked keys', async () => {
      const t = await setup();
      const { id } = await t.mint({ roles: ['analyst'] });
      expect(await failure(t.keys.rotate({ userId: id, kind: 'service' }, id, undefined))).toEqual({
        status: 403,
        code: 'api_key_cannot_mint',
      });
      t.repo.users.set('narrow', ['admin']);
      expect(await failure(t.keys.rotate({ userId: 'narrow', kind: 'user' }, id, undefined))).toEqual({
        status: 403,
        code: 'api_key_exceeds_minter',
      });
      await t.keys.revoke(id);
      expect(await failure(t.keys.rotate(t.admin, id, undefined))).toEqual({
        status: 404,
        code: 'not_found',
      });
    });
  });

  describe('mint', () => {
    it('stores only the hash, with the default lifetime, and never shows the hash', async () => {
      const t = await setup();
      const minted = await t.mint({ roles: ['experimenter', 'experimenter'] });
      expect(minted.roles).toEqual(['experimenter']);
      expect(t.repo.rows[0]?.keyHash).toBe(hashApiKey(minted.key));
      expect(JSON.stringify(await t.keys.list())).not.toContain(hashApiKey(minted.key));
      expect(minted.createdBy).toBe('admin');
    });

    it('allows only people who are admins now, and only roles they hold', async () => {
      const t = await setup();
      const input = createApiKeySchema.parse({ name: 'k', roles: ['analyst'], services: ['eval-runner'] });
      expect(await failure(t.keys.mint({ userId: 'key-1', kind: 'service' }, input))).toEqual({
        status: 403,
        code: 'api_key_cannot_mint',
      });
      t.repo.users.set('demoted', ['analyst']);
      expect(await failure(t.keys.mint({ userId: 'demoted', kind: 'user' }, input))).toEqual({
        status: 403,
        code: 'forbidden',
      });
      expect(await failure(t.keys.mint({ userId: 'deleted', kind: 'user' }, input))).toEqual({
        status: 401,
        code: 'unauthorized',
      });
      t.repo.users.set('narrow', ['admin', 'experimenter']);
      expect(await failure(t.keys.mint({ userId: 'narrow', kind: 'user' }, input))).toEqual({
        status: 403,
        code: 'api_key_exceeds_minter',
      });
    });

    it('refuses admin keys, unknown services and lifetimes beyond the maximum', async () => {
      const t = await setup();
      expect(
        createApiKeySchema.safeParse({ name: 'k', roles: ['admin'], services: ['eval-runner'] }).success,
      ).toBe(false);
      expect(
        createApiKeySchema.safeParse({ name: 'k', roles: ['analyst'], services: ['billing'] }).success,
      ).toBe(false);
      const at = (ms: number) => new Date(t.now().getTime() + ms).toISOString();
      expect(await failure(t.mint({ expiresAt: at(90 * DAY + 1) }))).toEqual({
        status: 400,
        code: 'validation_failed',
      });
      expect(await failure(t.mint({ expiresAt: at(0) }))).toEqual({ status: 400, code: 'validation_failed' });
      expect((await t.mint({ expiresAt: at(90 * DAY) })).expiresAt).toEqual(new Date(at(90 * DAY)));
    });
  });
});
