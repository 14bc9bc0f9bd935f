import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GatewayClient } from './gateway-client';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('GatewayClient sessions', () => {
  let dir: string;
  let now: number;
  let fetch: jest.SpyInstance;

  /** A client that registered a new local account at time 0 (its access token lives 900 s). */
  async function signedIn() {
    const client = new GatewayClient('http://gateway.test', () => now);
    fetch.mockResolvedValueOnce(
      json(201, { userId: 'u', accessToken: 'a1', refreshToken: 'r1', expiresIn: 900 }),
    );
    await client.signIn(path.join(dir, 'credentials.json'), 'Sam');
    return client;
  }

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'chat-cli-'));
    now = 0;
    fetch = jest.spyOn(global, 'fetch');
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a token with more than a minute left, and renews one about to expire before a socket uses it', async () => {
    const client = await signedIn();
    now = 800_000;
    expect(await client.freshAccessToken()).toBe('a1');
    fetch.mockResolvedValueOnce(json(200, { accessToken: 'a2', refreshToken: 'r2', expiresIn: 900 }));
    now = 850_000;
    expect(await client.freshAccessToken()).toBe('a2');
    expect(fetch).toHaveBeenLastCalledWith(
      'http://gateway.test/v1/auth/refresh',
      expect.objectContaining({ method: 'POST', body: JSON.stringify({ refreshToken: 'r1' }) }),
    );
  });

  it('renews the session once on a 401 and retries the call', async () => {
    const client = await signedIn();
    fetch
      .mockResolvedValueOnce(json(401, { error: { code: 'unauthorized', message: 'x' } }))
      .mockResolvedValueOnce(json(200, { accessToken: 'a2', refreshToken: 'r2', expiresIn: 900 }))
      .mockResolvedValueOnce(json(200, { items: [] }));
    await expect(client.call('get', '/v1/characters')).resolves.toEqual({ items: [] });
    expect(client.accessToken).toBe('a2');
  });
});
