import { startApp, waitFor, type AppProcess } from '@echoloop/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { SignJWT } from 'jose';
import type { Socket } from 'socket.io-client';
import { sendAndCollect, startChatFixture, type ChatFixture } from '../chat/chat-fixture';

const JWT_SECRET = randomBytes(32).toString('hex');
const PASSWORD = 'a good passphrase';

interface Tokens {
  accessToken: string;
  refreshToken: string;
  userId: string;
  email: string;
}

/** An HTTP call from another client address on the loopback network (127.0.0.2 …), as a second device would. */
function callFrom(
  localAddress: string,
  url: string,
  body: unknown,
): Promise<{ status: number; body: any; retryAfter?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
            ...(res.headers['retry-after'] && { retryAfter: String(res.headers['retry-after']) }),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Resolves with what the server said when it ended the socket's session, then saw it disconnect. */
function sessionEnded(socket: Socket): Promise<{ code: string }> {
  return new Promise((resolve) => {
    socket.once('session:ended', (event: { code: string }) =>
      socket.once('disconnect', () => resolve(event)),
    );
  });
}

describe('sessions that follow the account', () => {
  let f: ChatFixture;
  let users = 0;

  const signUp = async (): Promise<Tokens> => {
    const email = `session-${++users}-${Date.now()}@example.com`;
    const res = await f.http(undefined, 'POST', '/v1/auth/register', {
      email,
      password: PASSWORD,
      displayName: 'Sam',
    });
    expect(res.status).toBe(201);
    return { ...res.body, email };
  };
  const signIn = async (email: string) => {
    const res = await f.http(undefined, 'POST', '/v1/auth/login', { email, password: PASSWORD });
    expect(res.status).toBe(200);
    return res.body as Omit<Tokens, 'userId' | 'email'>;
  };
  const refresh = (refreshToken: string) => f.http(undefined, 'POST', '/v1/auth/refresh', { refreshToken });
  const status = async (token: string, path = '/v1/me') => (await f.http(token, 'GET', path)).status;

  beforeAll(async () => {
    f = await startChatFixture({ JWT_SECRET });
  }, 120_000);

  afterAll(async () => {
    await f?.close();
  });

  it('a refresh token renews the session once; a copy used again ends the session', async () => {
    const first = await signUp();
    expect(first).toMatchObject({ tokenType: 'Bearer', expiresIn: expect.any(Number) });

    const second = await refresh(first.refreshToken);
    expect(second.status).toBe(200);
    expect(second.body.refreshToken).not.toBe(first.refreshToken);
    expect(await status(second.body.accessToken)).toBe(200);
    const third = await refresh(second.body.refreshToken);
    expect(third.status).toBe(200);

    // The first refresh token again: someone kept a copy. The whole session ends, the newest tokens too.
    const replay = await refresh(first.refreshToken);
    expect(replay).toEqual({
      status: 401,
      body: { error: { code: 'invalid_refresh_token', message: expect.any(String) } },
    });
    expect(await status(third.body.accessToken)).toBe(401);
    expect(await status(first.accessToken)).toBe(401);
    expect((await refresh(third.body.refreshToken)).status).toBe(401);
    expect((await refresh('elr_not-a-token')).status).toBe(401);
  });

  it('logout ends this session at once and leaves the others; everywhere ends them all', async () => {
    const user = await signUp();
    const laptop = await signIn(user.email);
    const phone = await signIn(user.email);

    expect((await f.http(laptop.accessToken, 'POST', '/v1/auth/logout')).status).toBe(204);
    expect(await status(laptop.accessToken)).toBe(401);
    expect((await refresh(laptop.refreshToken)).status).toBe(401);
    expect(await status(phone.accessToken)).toBe(200);
    expect(await status(user.accessToken)).toBe(200);

    expect((await f.http(phone.accessToken, 'POST', '/v1/auth/logout', { everywhere: true })).status).toBe(
      204,
    );
    expect(await status(phone.accessToken)).toBe(401);
    expect(await status(user.accessToken)).toBe(401);
    expect((await refresh(user.refreshToken)).status).toBe(401);
    // Signing in again works: the account is fine, only its sessions ended.
    expect(await status((await signIn(user.email)).accessToken)).toBe(200);
  });

  it("a deleted account's tokens, refresh tokens and open sockets end at once", async () => {
    const user = await signUp();
    const socket = await f.connect(user.accessToken);
    const { id: conversationId } = (
      await f.http(user.accessToken, 'POST', '/v1/conversations', { characterId: f.characterId })
    ).body;
    const marker = `erase-me-${randomUUID()}`;
    const turn = await sendAndCollect(socket, { conversationId, content: marker, clientMessageId: 'erase' });
    expect(turn.done).toBeDefined();
    const outboxHolding = async (text: string) =>
      (
        (await f.db.query(`SELECT count(*)::int AS n FROM outbox WHERE payload::text LIKE $1`, [
          `%${text}%`,
        ])) as [{ n: number }]
      )[0].n;
    expect(await outboxHolding(marker)).toBeGreaterThan(0);
    const ended = sessionEnded(socket);

    expect((await f.http(user.accessToken, 'DELETE', '/v1/me')).status).toBe(204);
    // Nothing the user sent stays behind in the outbox, published or not, nor anywhere else.
    expect(await outboxHolding(marker)).toBe(0);
    expect(await outboxHolding(user.userId)).toBe(0);
    const tables = (await f.db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    )) as { table_name: string }[];
    for (const { table_name: table } of tables) {
      const [{ n }] = (await f.db.query(
        `SELECT count(*)::int AS n FROM "${table}" t WHERE t::text LIKE $1 OR t::text LIKE $2`,
        [`%${user.userId}%`, `%${marker}%`],
      )) as [{ n: number }];
      expect([table, n]).toEqual([table, 0]);
    }
    await expect(ended).resolves.toEqual({ code: 'session_ended', message: expect.any(String) });
    for (const [method, path] of [
      ['GET', '/v1/characters'],
      ['GET', '/v1/conversations'],
      ['PATCH', '/v1/me/profile'],
      ['DELETE', '/v1/me/profile'],
      ['DELETE', '/v1/me'],
    ] as const) {
      const res = await f.http(
        user.accessToken,
        method,
        path,
        method === 'PATCH' ? { inferenceEnabled: false } : undefined,
      );
      expect([method, path, res.status]).toEqual([method, path, 401]);
    }
    expect((await refresh(user.refreshToken)).status).toBe(401);
    await expect(f.connect(user.accessToken)).rejects.toThrow('unauthorized');
  });

  it('a disabled account loses its sockets and cannot sign in; a demoted admin keeps only user rights', async () => {
    const admin = await f.registerWithRoles(['admin']);
    const user = await signUp();
    const socket = await f.connect(user.accessToken);
    const ended = sessionEnded(socket);

    expect((await f.http(admin.token, 'PATCH', `/v1/users/${user.userId}`, { disabled: true })).status).toBe(
      200,
    );
    await expect(ended).resolves.toMatchObject({ code: 'session_ended' });
    expect((await refresh(user.refreshToken)).status).toBe(401);
    const login = await f.http(undefined, 'POST', '/v1/auth/login', {
      email: user.email,
      password: PASSWORD,
    });
    expect(login).toEqual({
      status: 403,
      body: { error: { code: 'account_disabled', message: expect.any(String) } },
    });

    // Enabled again: a new sign-in works, the old session stays ended.
    expect((await f.http(admin.token, 'PATCH', `/v1/users/${user.userId}`, { disabled: false })).status).toBe(
      200,
    );
    expect(await status(user.accessToken)).toBe(401);
    expect(await status((await signIn(user.email)).accessToken)).toBe(200);

    const other = await f.registerWithRoles(['user', 'admin']);
    const adminSocket = await f.connect(other.token);
    expect(
      (await f.http(admin.token, 'PATCH', `/v1/users/${other.userId}`, { roles: ['user'] })).status,
    ).toBe(200);
    expect(await status(other.token, '/v1/users')).toBe(403);
    expect(await status(other.token)).toBe(200);
    expect(adminSocket.connected).toBe(true);
  });

  it('refuses signed tokens without an expiry, without a session, or for a session that never existed', async () => {
    const user = await signUp();
    const key = new TextEncoder().encode(JWT_SECRET);
    const { sid } = JSON.parse(Buffer.from(user.accessToken.split('.')[1]!, 'base64url').toString()) as {
      sid: string;
    };
    const sign = (claims: Record<string, unknown>, expires: boolean) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(user.userId)
        .setIssuer('echoloop')
        .setIssuedAt();
      return (expires ? jwt.setExpirationTime('5m') : jwt).sign(key);
    };
    expect(await status(await sign({ sid }, true))).toBe(200);
    expect(await status(await sign({ sid }, false))).toBe(401);
    expect(await status(await sign({ roles: ['user', 'admin'] }, true))).toBe(401);
    expect(await status(await sign({ sid: randomUUID() }, true))).toBe(401);
  });

  it('ten wrong passwords from one client slow that client down, not the owner elsewhere', async () => {
    const user = await signUp();
    const login = `${f.gateway.url}/v1/auth/login`;
    for (let i = 0; i < 10; i++) {
      expect((await callFrom('127.0.0.2', login, { email: user.email, password: `guess ${i}` })).status).toBe(
        401,
      );
    }
    const throttled = await callFrom('127.0.0.2', login, { email: user.email, password: PASSWORD });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.retryAfter)).toBeGreaterThan(0);

    const owner = await callFrom('127.0.0.3', login, { email: user.email, password: PASSWORD });
    expect(owner.status).toBe(200);
  });

  describe('with a second gateway replica', () => {
    let replica: AppProcess;

    beforeAll(async () => {
      replica = await startApp('chat-gateway', {
        DATABASE_URL: (f.db.options as { url: string }).url,
        JWT_SECRET,
        LLM_BASE_URL: f.vllm.url,
        LLM_MODEL: 'fake-base-model',
      });
    }, 60_000);

    afterAll(async () => {
      await replica?.stop();
    });

    it('a change made through one replica reaches the other without a restart', async () => {
      const admin = await f.registerWithRoles(['admin']);
      const user = await signUp();
      const onReplica = async (token: string) =>
        (await fetch(`${replica.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status;
      expect(await onReplica(user.accessToken)).toBe(200);

      expect(
        (await f.http(admin.token, 'PATCH', `/v1/users/${user.userId}`, { disabled: true })).status,
      ).toBe(200);
      await waitFor(async () => (await onReplica(user.accessToken)) === 401, {
        timeoutMs: 3_000,
        what: 'the replica to refuse the disabled account',
      });
    });
  });
});
