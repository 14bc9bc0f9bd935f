import { waitFor, type AppProcess } from '@echoloop/testing';
import { createHash } from 'node:crypto';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';

/** The grace of the second gateway: short enough to wait out. The first one keeps the default (10 s). */
const SHORT_GRACE_MS = 1_000;

interface Tokens {
  accessToken: string;
  refreshToken: string;
}

describe('two tabs refreshing one session with the same refresh token', () => {
  let f: ChatFixture;
  let shortGrace: AppProcess;
  let users = 0;

  const signUp = async (): Promise<Tokens & { userId: string }> => {
    const res = await f.http(undefined, 'POST', '/v1/auth/register', {
      email: `grace-${++users}-${Date.now()}@example.com`,
      password: 'a good passphrase',
      displayName: 'Tab',
    });
    expect(res.status).toBe(201);
    return res.body;
  };
  const refreshOn = async (url: string, refreshToken: string) => {
    const res = await fetch(`${url}/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken }),
    });
    return { status: res.status, body: (await res.json()) as Tokens };
  };
  const meOn = async (url: string, token: string) =>
    (await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status;
  const session = async (userId: string) =>
    (
      (await f.db.query(
        `SELECT revoked_reason, (SELECT count(*)::int FROM refresh_tokens t WHERE t.session_id = s.id) AS tokens
           FROM sessions s WHERE s.user_id = $1`,
        [userId],
      )) as { revoked_reason: string | null; tokens: number }[]
    )[0];
  /** Both at once, as two tabs whose access tokens ran out together. */
  const twoTabs = async (url: string, refreshToken: string): Promise<[Tokens, Tokens]> => {
    const [a, b] = await Promise.all([refreshOn(url, refreshToken), refreshOn(url, refreshToken)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.refreshToken).not.toBe(b.body.refreshToken);
    return [a.body, b.body];
  };

  beforeAll(async () => {
    f = await startChatFixture();
    shortGrace = await f.startPeer({ REFRESH_REUSE_GRACE_MS: String(SHORT_GRACE_MS) });
  }, 120_000);

  afterAll(async () => {
    await f?.close();
  });

  it('both renew the session, and both tabs go on with their own tokens', async () => {
    const user = await signUp();

    const [a, b] = await twoTabs(f.gateway.url, user.refreshToken);

    expect(await meOn(f.gateway.url, a.accessToken)).toBe(200);
    expect(await meOn(f.gateway.url, b.accessToken)).toBe(200);
    expect((await refreshOn(f.gateway.url, a.refreshToken)).status).toBe(200);
    expect((await refreshOn(f.gateway.url, b.refreshToken)).status).toBe(200);
    // The first token, two successors for it, and one for each of theirs.
    expect(await session(user.userId)).toEqual({ revoked_reason: null, tokens: 5 });
  });

  it('the old token again once the grace has passed ends the session, the new tokens too', async () => {
    const user = await signUp();
    const [a, b] = await twoTabs(shortGrace.url, user.refreshToken);
    const hash = createHash('sha256').update(user.refreshToken).digest('hex');
    const [{ used_at: usedAt }] = (await f.db.query(
      `SELECT used_at FROM refresh_tokens WHERE token_hash = $1`,
      [hash],
    )) as [{ used_at: Date }];
    // The gateway stamped used_at with this machine's clock.
    await waitFor(() => Date.now() > usedAt.getTime() + SHORT_GRACE_MS, {
      timeoutMs: SHORT_GRACE_MS * 5,
      what: 'the grace to pass',
    });

    const replay = await refreshOn(shortGrace.url, user.refreshToken);

    expect(replay).toEqual({
      status: 401,
      body: { error: { code: 'invalid_refresh_token', message: expect.any(String) } },
    });
    expect(await session(user.userId)).toMatchObject({ revoked_reason: 'refresh_reuse' });
    for (const tab of [a, b]) {
      expect(await meOn(shortGrace.url, tab.accessToken)).toBe(401);
      expect((await refreshOn(shortGrace.url, tab.refreshToken)).status).toBe(401);
    }
  });

  it('gives no grace once the successor was used: the old token is then a copy', async () => {
    const user = await signUp();
    const next = await refreshOn(f.gateway.url, user.refreshToken);
    const after = await refreshOn(f.gateway.url, next.body.refreshToken);
    expect([next.status, after.status]).toEqual([200, 200]);

    expect((await refreshOn(f.gateway.url, user.refreshToken)).status).toBe(401);

    expect(await session(user.userId)).toMatchObject({ revoked_reason: 'refresh_reuse' });
    expect(await meOn(f.gateway.url, after.body.accessToken)).toBe(401);
  });
});
