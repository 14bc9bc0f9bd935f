import { AccountAuditEntity, UserEntity } from '@echoloop/persistence';
import { startApp } from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { insertApiKey } from '../api-keys/insert-api-key';
import { startChatFixture, type ChatFixture } from '../chat/chat-fixture';

const ROOT = path.resolve(__dirname, '../..');
const BOOTSTRAP_EMAIL = 'root@example.com';
const BOOTSTRAP_PASSWORD = 'bootstrap passphrase 1';

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `./echoloop admin ...` as an operator runs it, against the fixture's database. */
function adminCli(databaseUrl: string, args: string[], stdin?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['-r', '@swc-node/register', 'tools/admin/src/main.ts', ...args],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

describe('account administration', () => {
  let f: ChatFixture;
  let databaseUrl: string;
  let root: { token: string; userId: string };

  const login = (email: string, password: string) =>
    f.http(undefined, 'POST', '/v1/auth/login', { email, password });
  const audit = (userId: string) =>
    f.db.getRepository(AccountAuditEntity).find({ where: { targetId: userId }, order: { id: 'ASC' } });

  beforeAll(async () => {
    f = await startChatFixture({
      BOOTSTRAP_ADMIN_EMAIL: 'Root@Example.com',
      BOOTSTRAP_ADMIN_PASSWORD: BOOTSTRAP_PASSWORD,
    });
    databaseUrl = (f.db.options as { url: string }).url;
    const signedIn = await login(BOOTSTRAP_EMAIL, BOOTSTRAP_PASSWORD);
    const user = await f.db.getRepository(UserEntity).findOneByOrFail({ email: BOOTSTRAP_EMAIL });
    root = { token: signedIn.body?.accessToken, userId: user.id };
  }, 90_000);

  afterAll(() => f?.close());

  describe('the bootstrap admin', () => {
    it('is created at the first start, can sign in, and its password never reaches the logs', async () => {
      expect(root.token).toEqual(expect.any(String));
      expect((await f.http(root.token, 'GET', '/v1/users')).status).toBe(200);
      expect(await audit(root.userId)).toEqual([
        expect.objectContaining({ actor: 'bootstrap', actorId: null, action: 'created', before: null }),
      ]);
      expect(f.gateway.logs()).not.toContain(BOOTSTRAP_PASSWORD);
    });

    it('is not created again, nor another one, when a gateway starts with an admin present', async () => {
      const second = await startApp('chat-gateway', {
        DATABASE_URL: databaseUrl,
        LLM_BASE_URL: f.vllm.url,
        LLM_MODEL: 'fake-base-model',
        BOOTSTRAP_ADMIN_EMAIL: 'second-root@example.com',
        BOOTSTRAP_ADMIN_PASSWORD: 'another passphrase 2',
      });
      await second.stop();
      const users = f.db.getRepository(UserEntity);
      expect(await users.existsBy({ email: 'second-root@example.com' })).toBe(false);
      expect(await f.db.getRepository(AccountAuditEntity).countBy({ actor: 'bootstrap' })).toBe(1);
    }, 90_000);
  });

  describe('listing', () => {
    it('filters by email part, role and disabled, pages, and never shows password hashes', async () => {
      const tag = `lst${Date.now()}`;
      const made = [];
      for (let i = 0; i < 3; i++) {
        const res = await f.http(undefined, 'POST', '/v1/auth/register', {
          email: `${tag}-${i}@example.com`,
          password: 'a good passphrase',
          displayName: `Listed ${i}`,
        });
        made.push(res.body.userId as string);
      }

      const first = await f.http(root.token, 'GET', `/v1/users?email=${tag.toUpperCase()}&limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.items.map((u: any) => u.id)).toEqual(made.slice(0, 2));
      expect(first.body.nextOffset).toBe(2);
      expect(first.body.items[0]).toEqual({
        id: made[0],
        email: `${tag}-0@example.com`,
        displayName: 'Listed 0',
        roles: ['user'],
        disabled: false,
        disabledAt: null,
        simulated: false,
        createdAt: expect.any(String),
      });
      const rest = await f.http(root.token, 'GET', `/v1/users?email=${tag}&limit=2&offset=2`);
      expect(rest.body).toEqual({ items: [expect.objectContaining({ id: made[2] })], nextOffset: null });

      const all = await f.http(root.token, 'GET', '/v1/users?limit=100');
      expect(JSON.stringify(all.body)).not.toMatch(/scrypt|passwordHash/);
      // LIKE wildcards in the filter are plain characters.
      expect((await f.http(root.token, 'GET', '/v1/users?email=%25')).body.items).toEqual([]);
      expect((await f.http(root.token, 'GET', '/v1/users?email=_')).body.items).toEqual([]);

      const admins = await f.http(root.token, 'GET', '/v1/users?role=admin&limit=100');
      expect(admins.body.items.map((u: any) => u.email)).toEqual(
        expect.arrayContaining([BOOTSTRAP_EMAIL, 'admin@example.com']),
      );
      expect(admins.body.items.every((u: any) => u.roles.includes('admin'))).toBe(true);

      expect((await f.http(root.token, 'PATCH', `/v1/users/${made[1]}`, { disabled: true })).status).toBe(
        200,
      );
      const disabled = await f.http(root.token, 'GET', `/v1/users?email=${tag}&disabled=true`);
      expect(disabled.body.items.map((u: any) => u.id)).toEqual([made[1]]);
      const enabled = await f.http(root.token, 'GET', `/v1/users?email=${tag}&disabled=false`);
      expect(enabled.body.items.map((u: any) => u.id)).toEqual([made[0], made[2]]);
    });
  });

  describe('changes', () => {
    it('grants roles and disables, each change audited with actor, before and after', async () => {
      const { userId } = await f.register('Target');

      const granted = await f.http(root.token, 'PATCH', `/v1/users/${userId}`, {
        roles: ['analyst', 'user'],
      });
      expect(granted).toMatchObject({ status: 200, body: { id: userId, roles: ['user', 'analyst'] } });
      const disabled = await f.http(root.token, 'PATCH', `/v1/users/${userId}`, { disabled: true });
      expect(disabled).toMatchObject({
        status: 200,
        body: { disabled: true, disabledAt: expect.any(String) },
      });
      expect((await f.http(root.token, 'GET', `/v1/users/${userId}`)).body).toMatchObject({
        roles: ['user', 'analyst'],
        disabled: true,
      });
      // Saying again what is already true changes nothing and adds no audit row.
      expect((await f.http(root.token, 'PATCH', `/v1/users/${userId}`, { disabled: true })).status).toBe(200);

      const trail = await f.http(root.token, 'GET', `/v1/users/${userId}/audit`);
      expect(trail.status).toBe(200);
      expect(trail.body.items).toEqual([
        expect.objectContaining({
          targetId: userId,
          actor: 'user',
          actorId: root.userId,
          action: 'updated',
          before: { roles: ['user'] },
          after: { roles: ['user', 'analyst'] },
          at: expect.any(String),
        }),
        expect.objectContaining({ before: { disabled: false }, after: { disabled: true } }),
      ]);

      const enabled = await f.http(root.token, 'PATCH', `/v1/users/${userId}`, { disabled: false });
      expect(enabled.body).toMatchObject({ disabled: false, disabledAt: null });
    });

    it('is for signed-in admins only: 403 for other roles and for API keys', async () => {
      const { userId } = await f.register('Someone');
      for (const roles of [['user'], ['analyst'], ['experimenter']]) {
        const staff = await f.registerWithRoles(roles);
        expect((await f.http(staff.token, 'GET', '/v1/users')).status).toBe(403);
        expect((await f.http(staff.token, 'GET', `/v1/users/${userId}`)).status).toBe(403);
        expect((await f.http(staff.token, 'PATCH', `/v1/users/${userId}`, { roles: ['admin'] })).status).toBe(
          403,
        );
        expect((await f.http(staff.token, 'GET', `/v1/users/${userId}/audit`)).status).toBe(403);
      }
      expect((await f.http(undefined, 'GET', '/v1/users')).status).toBe(401);

      // Keys cannot hold admin; one given it behind the application's back still manages no account.
      const issued = await insertApiKey(f.db, { roles: ['admin', 'analyst'], services: ['chat-gateway'] });
      const asKey = (method: string, route: string, body?: unknown) =>
        fetch(`${f.gateway.url}${route}`, {
          method,
          headers: { 'x-api-key': issued.key, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        }).then((r) => r.status);
      expect(await asKey('GET', '/v1/users')).toBe(403);
      expect(await asKey('PATCH', `/v1/users/${userId}`, { roles: ['admin'] })).toBe(403);
      expect((await f.http(root.token, 'GET', `/v1/users/${userId}`)).body.roles).toEqual(['user']);
    });

    it('answers 400 to bad ids, queries and bodies and 404 to unknown accounts, writing nothing', async () => {
      const { userId } = await f.register('Unbothered');
      const bad: [string, string, unknown?][] = [
        ['GET', '/v1/users/not-a-uuid'],
        ['PATCH', '/v1/users/not-a-uuid', { disabled: true }],
        ['GET', '/v1/users/not-a-uuid/audit'],
        ['GET', '/v1/users?limit=0'],
        ['GET', '/v1/users?limit=101'],
        ['GET', '/v1/users?role=god'],
        ['GET', '/v1/users?disabled=maybe'],
        ['GET', '/v1/users?offset=-1'],
        ['GET', '/v1/users?sort=email'],
        ['PATCH', `/v1/users/${userId}`, {}],
        ['PATCH', `/v1/users/${userId}`, { roles: [] }],
        ['PATCH', `/v1/users/${userId}`, { roles: ['god'] }],
        ['PATCH', `/v1/users/${userId}`, { roles: ['admin', 'admin'] }],
        ['PATCH', `/v1/users/${userId}`, { roles: 'admin' }],
        ['PATCH', `/v1/users/${userId}`, { disabled: 'yes' }],
        ['PATCH', `/v1/users/${userId}`, { roles: ['admin'], email: 'x@example.com' }],
        ['PATCH', `/v1/users/${userId}`, 'not json'],
      ];
      for (const [method, route, body] of bad) {
        const res = await f.http(root.token, method, route, body);
        expect({ method, route, body, status: res.status }).toEqual({ method, route, body, status: 400 });
        expect(res.body.error.code).toEqual(expect.any(String));
      }
      const ghost = randomUUID();
      expect((await f.http(root.token, 'GET', `/v1/users/${ghost}`)).status).toBe(404);
      expect((await f.http(root.token, 'PATCH', `/v1/users/${ghost}`, { disabled: true })).status).toBe(404);
      expect((await f.http(root.token, 'GET', `/v1/users/${ghost}/audit`)).status).toBe(404);
      expect((await f.http(root.token, 'GET', `/v1/users/${userId}`)).body.roles).toEqual(['user']);
      expect(await audit(userId)).toEqual([]);
    });
  });

  describe('./echoloop admin create', () => {
    it('creates an admin from a password on stdin, who signs in and promotes someone', async () => {
      const email = `ops-${Date.now()}@example.com`;
      const password = 'operator passphrase 3';
      const run = await adminCli(
        databaseUrl,
        ['create', '--email', email, '--name', 'Ops', '--password-stdin'],
        `${password}\n`,
      );
      expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining(`created admin ${email}`) });
      expect(run.stdout + run.stderr).not.toContain(password);

      const signedIn = await login(email, password);
      expect(signedIn.status).toBe(200);
      const { userId } = await f.register('Promoted');
      const promoted = await f.http(signedIn.body.accessToken, 'PATCH', `/v1/users/${userId}`, {
        roles: ['user', 'admin'],
      });
      expect(promoted).toMatchObject({ status: 200, body: { roles: ['user', 'admin'] } });

      const ops = await f.db.getRepository(UserEntity).findOneByOrFail({ email });
      expect(ops).toMatchObject({ displayName: 'Ops', roles: ['user', 'admin'] });
      expect(await audit(ops.id)).toEqual([
        expect.objectContaining({ actor: 'cli', actorId: null, action: 'created', before: null }),
      ]);
    }, 60_000);

    it('generates and prints the password once when none is given', async () => {
      const email = `gen-${Date.now()}@example.com`;
      const run = await adminCli(databaseUrl, ['create', '--email', email]);
      expect(run.code).toBe(0);
      const password = /password \(shown once\): (\S+)/.exec(run.stdout)?.[1];
      expect(password).toEqual(expect.any(String));
      expect((await login(email, password!)).status).toBe(200);
    }, 60_000);

    it('promotes an existing account, keeping its password, and audits it as the CLI', async () => {
      const { userId } = await f.register('Grown');
      const user = await f.db.getRepository(UserEntity).findOneByOrFail({ id: userId });
      const run = await adminCli(databaseUrl, ['create', '--email', user.email]);
      expect(run).toMatchObject({ code: 0, stdout: expect.stringContaining('is now an admin') });
      expect(run.stdout).not.toContain('password (shown once)');
      expect((await login(user.email, 'a good passphrase')).status).toBe(200);
      expect(await audit(userId)).toEqual([
        expect.objectContaining({
          actor: 'cli',
          action: 'updated',
          before: { roles: ['user'], disabled: false },
          after: { roles: ['user', 'admin'], disabled: false },
        }),
      ]);
      const again = await adminCli(databaseUrl, ['create', '--email', user.email]);
      expect(again).toMatchObject({ code: 0, stdout: expect.stringContaining('already an admin') });
      expect(await audit(userId)).toHaveLength(1);
    }, 60_000);

    it('exits 2 naming the problem for bad arguments or a short password, creating nothing', async () => {
      const bad = await adminCli(databaseUrl, ['create', '--email', 'not-an-email']);
      expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('--email') });
      const short = await adminCli(
        databaseUrl,
        ['create', '--email', 'short@example.com', '--password-stdin'],
        'too short\n',
      );
      expect(short).toMatchObject({ code: 2, stderr: expect.stringContaining('at least 12 characters') });
      expect(await f.db.getRepository(UserEntity).existsBy({ email: 'short@example.com' })).toBe(false);
    }, 60_000);
  });

  // Needs the auth guard to read the account's current state (the session work of issue 12, item 1).
  describe('existing tokens follow the account', () => {
    it('a disabled user loses access at once', async () => {
      const { token, userId } = await f.register('Disabled');
      expect((await f.http(token, 'GET', '/v1/me')).status).toBe(200);
      const patched = await f.http(root.token, 'PATCH', `/v1/users/${userId}`, { disabled: true });
      expect(patched.status).toBe(200);
      expect((await f.http(token, 'GET', '/v1/me')).status).toBe(401);
    });

    it('a demoted admin loses admin rights at once', async () => {
      const demoted = await f.registerWithRoles(['user', 'admin']);
      expect((await f.http(demoted.token, 'GET', '/v1/users')).status).toBe(200);
      const patched = await f.http(root.token, 'PATCH', `/v1/users/${demoted.userId}`, { roles: ['user'] });
      expect(patched.status).toBe(200);
      expect((await f.http(demoted.token, 'GET', '/v1/users')).status).toBe(403);
    });
  });

  // Last: it disables every other admin.
  describe('the last admin', () => {
    it('cannot be demoted or disabled, and no admin can disable themselves', async () => {
      const other = await f.registerWithRoles(['admin']);
      expect(
        (await f.http(root.token, 'PATCH', `/v1/users/${root.userId}`, { disabled: true })).body,
      ).toEqual({
        error: { code: 'cannot_disable_self', message: expect.any(String) },
      });

      const admins = await f.http(root.token, 'GET', '/v1/users?role=admin&disabled=false&limit=100');
      for (const admin of admins.body.items.filter((u: any) => u.id !== root.userId)) {
        expect((await f.http(root.token, 'PATCH', `/v1/users/${admin.id}`, { disabled: true })).status).toBe(
          200,
        );
      }
      expect(await f.db.getRepository(UserEntity).findOneByOrFail({ id: other.userId })).toMatchObject({
        disabledAt: expect.any(Date),
      });

      const demote = await f.http(root.token, 'PATCH', `/v1/users/${root.userId}`, { roles: ['user'] });
      expect(demote).toEqual({
        status: 409,
        body: { error: { code: 'last_admin', message: expect.any(String) } },
      });
      expect((await f.http(root.token, 'PATCH', `/v1/users/${root.userId}`, { disabled: true })).status).toBe(
        409,
      );
      expect((await f.http(root.token, 'GET', `/v1/users/${root.userId}`)).body).toMatchObject({
        roles: ['user', 'admin'],
        disabled: false,
      });
      expect(await audit(root.userId)).toHaveLength(1);
    });
  });
});
