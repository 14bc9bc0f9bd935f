import { startFakeVllm, waitFor } from '@echoloop/testing';
import { insertApiKey } from './insert-api-key';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';

/** API keys at the gateway, where they are minted: who may mint what, rotation, expiry and revocation. */
describe('API keys (gateway)', () => {
  let f: ChatFixture;
  let admin: { token: string; userId: string };

  beforeAll(async () => {
    // A short grace, so that a rotated-out secret stops working within the test.
    f = await startChatFixture({ API_KEY_ROTATION_GRACE_SECONDS: '1' });
    admin = await f.registerWithRoles(['admin', 'experimenter']);
  });

  afterAll(() => f?.close());

  const asKey = async (key: string, method = 'GET', path = '/v1/checkpoints', body?: unknown) => {
    const res = await fetch(`${f.gateway.url}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const parsed = (await res.json().catch(() => undefined)) as { error?: { code: string } } | undefined;
    return { status: res.status, code: parsed?.error?.code };
  };
  const mint = (token: string, body: Record<string, unknown>) =>
    f.http(token, 'POST', '/v1/api-keys', { name: 'trainer', services: ['chat-gateway'], ...body });

  it('lets an admin mint only keys within their own roles, never admin keys, and never with a key', async () => {
    const narrowAdmin = await f.registerWithRoles(['admin']);
    expect(await mint(narrowAdmin.token, { roles: ['experimenter'] })).toMatchObject({
      status: 403,
      body: { error: { code: 'api_key_exceeds_minter', details: { missing: ['experimenter'] } } },
    });
    expect(await mint(admin.token, { roles: ['admin'] })).toMatchObject({
      status: 400,
      body: { error: { details: [{ path: 'roles.0' }] } },
    });
    expect(await mint(admin.token, { roles: ['experimenter'], services: ['billing'] })).toMatchObject({
      status: 400,
    });
    const issued = await mint(admin.token, { roles: ['experimenter'] });
    expect(issued).toMatchObject({
      status: 201,
      body: { key: expect.stringMatching(/^elk_/), roles: ['experimenter'], services: ['chat-gateway'] },
    });
    expect(await asKey(issued.body.key)).toEqual({ status: 200, code: undefined });
    const newKey = { name: 'x', roles: ['experimenter'], services: ['chat-gateway'] };
    expect(await asKey(issued.body.key, 'POST', '/v1/api-keys', newKey)).toMatchObject({ status: 403 });
    // Even a key given admin behind the application's back mints nothing.
    const forged = await insertApiKey(f.db, { roles: ['admin', 'experimenter'], services: ['chat-gateway'] });
    expect(await asKey(forged.key, 'POST', '/v1/api-keys', newKey)).toEqual({
      status: 403,
      code: 'api_key_role_not_allowed',
    });
    expect(await asKey(forged.key, 'POST', `/v1/api-keys/${issued.body.id}/rotate`, {})).toMatchObject({
      status: 403,
    });
  });

  it('refuses with 403 a key scoped to another service, and with 401 an expired or revoked one at once', async () => {
    const labellerOnly = await insertApiKey(f.db, { roles: ['experimenter'], services: ['reward-labeller'] });
    expect(await asKey(labellerOnly.key)).toEqual({ status: 403, code: 'api_key_service_not_allowed' });
    const expiring = await insertApiKey(f.db, { roles: ['analyst'], services: ['chat-gateway'] });
    expect((await asKey(expiring.key)).status).toBe(200);
    await f.db.query('UPDATE api_keys SET expires_at = now() WHERE id = $1', [expiring.id]);
    expect(await asKey(expiring.key)).toEqual({ status: 401, code: 'api_key_expired' });
    const issued = await mint(admin.token, { roles: ['experimenter'] });
    expect((await asKey(issued.body.key)).status).toBe(200);
    expect((await f.http(admin.token, 'DELETE', `/v1/api-keys/${issued.body.id}`)).status).toBe(204);
    expect(await asKey(issued.body.key)).toEqual({ status: 401, code: 'api_key_revoked' });
  });

  it('rotates a key: a new secret for the same record, the old one working only for the grace period', async () => {
    const issued = await mint(admin.token, { roles: ['experimenter'] });
    expect((await asKey(issued.body.key)).status).toBe(200);
    const rotated = await f.http(admin.token, 'POST', `/v1/api-keys/${issued.body.id}/rotate`);
    expect(rotated).toMatchObject({
      status: 200,
      body: { id: issued.body.id, rotatedAt: expect.any(String) },
    });
    expect(rotated.body.key).not.toBe(issued.body.key);
    expect((await asKey(rotated.body.key)).status).toBe(200);
    await waitFor(async () => (await asKey(issued.body.key)).code === 'api_key_rotated', {
      timeoutMs: 5_000,
      what: 'the rotated-out secret to stop working',
    });
    expect((await asKey(rotated.body.key)).status).toBe(200);

    const listed = await waitFor(
      async () => {
        const res = await f.http(admin.token, 'GET', '/v1/api-keys');
        const row = res.body.items.find((k: { id: string }) => k.id === issued.body.id);
        return row?.lastUsedAt && { res, row };
      },
      { timeoutMs: 5_000, what: 'the last use to be recorded' },
    );
    expect(listed.row).toMatchObject({
      status: 'active',
      services: ['chat-gateway'],
      expiresAt: expect.any(String),
      rotatedAt: expect.any(String),
    });
    const text = JSON.stringify(listed.res.body);
    expect(text).not.toContain(rotated.body.key);
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('registers checkpoints only on allowed hosts, with keys only from allowed variables (400 naming the field)', async () => {
    const experimenter = await f.registerWithRoles(['experimenter']);
    const checkpoint = (endpoint: Record<string, string>) =>
      f.http(experimenter.token, 'POST', '/v1/checkpoints', {
        id: 'far',
        modelName: 'm',
        endpoints: [endpoint],
      });
    expect(
      await checkpoint({ baseUrl: 'https://collector.example/v1', apiKeyEnv: 'LLM_API_KEY' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'validation_failed', details: [{ path: 'endpoints.0.baseUrl' }] } },
    });
    expect(await checkpoint({ baseUrl: f.vllm.url, apiKeyEnv: 'LLM_ADMIN_KEY' })).toMatchObject({
      status: 400,
      body: { error: { details: [{ path: 'endpoints.0.apiKeyEnv' }] } },
    });
    expect(await checkpoint({ baseUrl: f.vllm.url, apiKeyEnv: 'LLM_API_KEY' })).toMatchObject({
      status: 201,
    });
  });

  it('refuses at use a stored checkpoint whose host is no longer allowed, sending it nothing', async () => {
    const elsewhere = await startFakeVllm({ model: 'fake-base-model', reply: 'leaked' });
    try {
      // A row registered under an older configuration, made the default behind the API's back.
      await f.db.query('UPDATE checkpoints SET is_default = false');
      await f.db.query(
        `INSERT INTO checkpoints (id, model_name, endpoints, status, is_default) VALUES ('moved', 'fake-base-model', $1, 'active', true)`,
        [JSON.stringify([{ baseUrl: elsewhere.url, apiKeyEnv: 'LLM_API_KEY' }])],
      );
      const { token } = await f.register();
      const conversation = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
      let sent = 0;
      // The gateway reads the default through a cache of a few seconds; turns before that use the old one.
      const refused = await waitFor(
        async () => {
          const res = await f.http(token, 'POST', `/v1/conversations/${conversation.body.id}/messages`, {
            content: 'hi',
            clientMessageId: `m${++sent}`,
          });
          return res.status === 502 && res.body;
        },
        { timeoutMs: 15_000, intervalMs: 1_000, what: 'the turn on the moved checkpoint to be refused' },
      );
      expect(refused.error.code).toBe('model_rejected');
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await f.db.query('UPDATE checkpoints SET is_default = false');
      await f.db.query(`UPDATE checkpoints SET is_default = true WHERE id = 'base'`);
      await elsewhere.close();
    }
  });
});
