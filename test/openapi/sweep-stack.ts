import { CharacterEntity, ROLES } from '@echoloop/persistence';
import type { OpenApiDocument } from '@echoloop/platform';
import {
  freshLabellerGroup,
  startApp,
  startFakeVllm,
  type AppProcess,
  type FakeVllm,
  type TestDatabase,
} from '@echoloop/testing';
import type { DataSource } from 'typeorm';
import { insertApiKey } from '../api-keys/insert-api-key';
import { sampleOf, freshUuid, type Schema } from './json-schema-sample';
import { APPS, migratedDatabase, type AppName } from './openapi-fixture';

export interface Caller {
  label: string;
  headers: Record<string, string>;
}

/** The four apps on one throwaway database (API keys minted by the gateway work everywhere), a scripted model. */
export interface SweepStack {
  db: DataSource;
  apps: Record<AppName, AppProcess>;
  documents: Record<AppName, OpenApiDocument>;
  admin: Caller & { userId: string };
  service: Caller;
  characterId: string;
  /** A new user (each operation gets its own: some delete or change their account). */
  user(): Promise<Caller & { userId: string; token: string; ids: string[] }>;
  close(): Promise<void>;
}

const PASSWORD = 'a good passphrase';

export async function startSweepStack(): Promise<SweepStack> {
  const { database, db }: { database: TestDatabase; db: DataSource } = await migratedDatabase('sweep');
  const vllm: FakeVllm = await startFakeVllm({ model: 'fake-base-model' });
  const env: Record<AppName, Record<string, string>> = {
    'chat-gateway': {
      LLM_BASE_URL: vllm.url,
      LLM_MODEL: 'fake-base-model',
      LLM_FIRST_TOKEN_TIMEOUT_MS: '1500',
      LLM_IDLE_TIMEOUT_MS: '1500',
      AUTH_ATTEMPTS_PER_MINUTE: '100000',
    },
    'reward-labeller': {
      LABELLER_GROUP_ID: await freshLabellerGroup('sweep-labeller'),
      JUDGE_BASE_URL: vllm.url,
      JUDGE_MODEL: 'fake-base-model',
    },
    // API only: a job a valid-looking request starts is not driven, so no background write lands mid-sweep.
    'rl-orchestrator': { RL_DRIVE_JOBS: 'false' },
    'eval-runner': {
      SIMULATOR_BASE_URL: vllm.url,
      SIMULATOR_MODEL: 'fake-base-model',
      JUDGE_BASE_URL: vllm.url,
      JUDGE_MODEL: 'fake-base-model',
    },
  };
  // The services first: the gateway forwards the staff pages' routes to the orchestrator and the eval-runner.
  const services = APPS.filter((app) => app !== 'chat-gateway');
  const started = await Promise.all(
    services.map((app) => startApp(app, { DATABASE_URL: database.url, ...env[app] }, 90_000)),
  );
  const apps = Object.fromEntries(services.map((app, i) => [app, started[i]!])) as Record<
    AppName,
    AppProcess
  >;
  const gatewayKey = async (service: 'rl-orchestrator' | 'eval-runner') =>
    (await insertApiKey(db, { name: `gateway to ${service}`, roles: ['experimenter'], services: [service] }))
      .key;
  try {
    apps['chat-gateway'] = await startApp(
      'chat-gateway',
      {
        DATABASE_URL: database.url,
        ...env['chat-gateway'],
        RL_ORCHESTRATOR_URL: apps['rl-orchestrator'].url,
        RL_ORCHESTRATOR_API_KEY: await gatewayKey('rl-orchestrator'),
        EVAL_RUNNER_URL: apps['eval-runner'].url,
        EVAL_RUNNER_API_KEY: await gatewayKey('eval-runner'),
      },
      90_000,
    );
  } catch (error) {
    await Promise.all(started.map((app) => app.stop()));
    throw error;
  }
  const close = async () => {
    await Promise.all(APPS.map((app) => apps[app].stop()));
    await vllm.close();
    await db.destroy();
    await database.drop();
  };
  try {
    return await prepare(db, apps, close);
  } catch (error) {
    await close();
    throw error;
  }
}

async function prepare(
  db: DataSource,
  apps: Record<AppName, AppProcess>,
  close: () => Promise<void>,
): Promise<SweepStack> {
  const documents = Object.fromEntries(
    await Promise.all(
      APPS.map(async (app) => [app, await (await fetch(`${apps[app].url}/docs/openapi.json`)).json()]),
    ),
  ) as Record<AppName, OpenApiDocument>;
  const gateway = apps['chat-gateway'].url;

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gateway}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  let users = 0;
  const register = async (name: string) => {
    const email = `${name}-${++users}-${Date.now()}@example.com`;
    const res = await post('/v1/auth/register', { email, password: PASSWORD, displayName: name });
    if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(res.body)}`);
    return { email, userId: res.body['userId'] as string, token: res.body['accessToken'] as string };
  };

  const staff = await register('admin');
  // Every role, so that the admin may mint a key with every role a key can hold.
  await db.query(`UPDATE users SET roles = $1 WHERE id = $2`, [[...ROLES], staff.userId]);
  const login = await post('/v1/auth/login', { email: staff.email, password: PASSWORD });
  const admin = {
    label: 'admin',
    userId: staff.userId,
    headers: { authorization: `Bearer ${login.body['accessToken']}` },
  };
  const character = await db.getRepository(CharacterEntity).save({
    name: 'Mira',
    spec: 'chara_card_v2',
    card: { spec: 'chara_card_v2', spec_version: '2.0', data: { name: 'Mira', first_mes: 'Hi {{user}}' } },
    createdBy: staff.userId,
  });
  const service = {
    label: 'service key',
    headers: { 'x-api-key': await mintServiceKey(documents['chat-gateway'], post, admin.headers) },
  };

  /**
   * A conversation of the user's own (its body from the documented schema, with the seeded character), so that
   * requests naming it reach the code behind the ownership check: the ids of the conversation and its greeting.
   */
  const startConversation = async (headers: Record<string, string>): Promise<string[]> => {
    const schema = (documents['chat-gateway'].paths['/v1/conversations']?.['post'] as any)?.requestBody
      ?.content['application/json']?.schema as Schema | undefined;
    if (!schema) return [];
    const res = await post(
      '/v1/conversations',
      sampleOf(schema, { resolve: () => ({}), uuid: () => character.id }),
      headers,
    );
    return res.status === 201 ? uuidsIn(res.body) : [];
  };

  return {
    db,
    apps,
    documents,
    admin,
    service,
    characterId: character.id,
    async user() {
      const created = await register('user');
      const headers = { authorization: `Bearer ${created.token}` };
      return { ...created, label: 'user', headers, ids: await startConversation(headers) };
    },
    close,
  };
}

/**
 * A service key minted as an admin through `POST /v1/api-keys`, its body built from the schema the gateway
 * documents now: every role and service it offers (the most a key can do), less the values it refuses.
 */
async function mintServiceKey(
  document: OpenApiDocument,
  post: (
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ) => Promise<{ status: number; body: any }>,
  headers: Record<string, string>,
): Promise<string> {
  const schema = (document.paths['/v1/api-keys']?.['post'] as any)?.requestBody?.content['application/json']
    ?.schema as Schema;
  const body = sampleOf(schema, { resolve: () => ({}), uuid: freshUuid }) as Record<string, unknown>;
  for (const [name, property] of Object.entries((schema['properties'] ?? {}) as Record<string, Schema>)) {
    const values = property['items']?.['enum'] as unknown[] | undefined;
    if (property['type'] === 'array' && values) body[name] = [...values];
    if (name === 'name') body[name] = 'api sweep';
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const res = await post('/v1/api-keys', body, headers);
    if (res.status === 201) return (res.body['key'] ?? res.body['secret'] ?? res.body['apiKey']) as string;
    const details = res.body['error']?.details as unknown;
    const refused = (Array.isArray(details) ? (details as { path?: unknown }[]) : [])
      .map((d) => /^(\w+)\.(\d+)$/.exec(String(d.path)))
      .filter((m): m is RegExpExecArray => m !== null);
    if (res.status !== 400 || !refused.length)
      throw new Error(`api key: ${res.status} ${JSON.stringify(res.body)}`);
    for (const [, field, index] of refused.reverse()) (body[field!] as unknown[]).splice(Number(index), 1);
  }
  throw new Error('could not mint a service API key');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every uuid in a JSON value. */
function uuidsIn(value: unknown): string[] {
  if (typeof value === 'string') return UUID.test(value) ? [value] : [];
  if (value === null || typeof value !== 'object') return [];
  return [...new Set(Object.values(value).flatMap(uuidsIn))];
}
