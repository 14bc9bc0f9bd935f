import { CharacterEntity, dataSourceOptions, UserEntity } from '@echoloop/persistence';
import {
  createTestDatabase,
  startApp,
  startFakeVllm,
  type AppProcess,
  type FakeVllm,
  type TestDatabase,
} from '@echoloop/testing';
import { io, type Socket } from 'socket.io-client';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';

export const MIRA_CARD = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira',
    description: '{{char}} is a night-shift nurse who listens to {{user}} with warmth.',
    personality: 'gentle, curious',
    scenario: 'A quiet evening chat.',
    first_mes: 'Hi {{user}}, long day?',
    creator_notes: 'never in the prompt',
    extensions: { depth_prompt: { depth: 4, prompt: 'x' } },
  },
};

/** A gateway on its own migrated database, talking to a scripted vLLM-compatible server. */
export interface ChatFixture {
  gateway: AppProcess;
  vllm: FakeVllm;
  db: DataSource;
  characterId: string;
  register(name?: string): Promise<{ token: string; userId: string }>;
  /** A user with these roles, signed in again so the roles are in the token. */
  registerWithRoles(roles: string[]): Promise<{ token: string; userId: string }>;
  http(
    token: string | undefined,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }>;
  connect(token: string | undefined): Promise<Socket>;
  /**
   * Another gateway process on the same database and model server (as a replica on another machine would be),
   * stopped with the fixture. Tokens are good on both: they share JWT_SECRET.
   */
  startPeer(env?: Record<string, string>): Promise<AppProcess>;
  /** A socket.io client of the peer (or of any gateway URL). */
  connectTo(url: string, token: string | undefined): Promise<Socket>;
  /** Bodies of the chat completions sent for replies, oldest first (not extractions or director steps). */
  replyRequests(): ChatRequestBody[];
  /** Bodies of the structured (`response_format`) requests with this JSON Schema name. */
  structuredRequests(schemaName: string): ChatRequestBody[];
  close(): Promise<void>;
}

export interface ChatRequestBody {
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema?: { name: string; schema: unknown } };
}

export async function startChatFixture(env: Record<string, string> = {}): Promise<ChatFixture> {
  const database: TestDatabase = await createTestDatabase('chat');
  const db = await new DataSource(dataSourceOptions({ url: database.url })).initialize();
  await db.runMigrations();
  const vllm = await startFakeVllm({ model: 'fake-base-model' });
  const gatewayEnv = {
    DATABASE_URL: database.url,
    LLM_BASE_URL: vllm.url,
    LLM_MODEL: 'fake-base-model',
    LLM_FIRST_TOKEN_TIMEOUT_MS: '1500',
    LLM_IDLE_TIMEOUT_MS: '1500',
    // Every test user signs up from 127.0.0.1.
    AUTH_ATTEMPTS_PER_MINUTE: '10000',
    // One secret, so a token from one gateway process is good on another (startPeer).
    JWT_SECRET: randomBytes(32).toString('hex'),
    ...env,
  };
  const gateway = await startApp('chat-gateway', gatewayEnv);
  const peers: AppProcess[] = [];
  const admin = await db
    .getRepository(UserEntity)
    .save({ email: 'admin@example.com', passwordHash: null, displayName: 'Admin', roles: ['admin'] });
  const character = await db
    .getRepository(CharacterEntity)
    .save({ name: 'Mira', spec: 'chara_card_v2', card: MIRA_CARD, createdBy: admin.id });
  const sockets: Socket[] = [];
  let users = 0;

  const http: ChatFixture['http'] = async (token, method, path, body) => {
    const res = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    // A 500 is never expected (502 and 503 are, while a dependency is down): say what the gateway logged, so a
    // rare one can be diagnosed from the test output.
    if (res.status === 500) {
      const errors = gateway
        .logs()
        .split('\n')
        .filter((line) => line.includes('"level":"error"'))
        .slice(-5);
      console.error(
        `${method} ${path} answered ${res.status}; the gateway's last errors:\n${errors.join('\n')}`,
      );
    }
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const connectTo: ChatFixture['connectTo'] = async (url, token) => {
    const socket = io(`${url}/chat`, {
      auth: token ? { token } : {},
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    return socket;
  };

  return {
    gateway,
    vllm,
    db,
    characterId: character.id,
    http,
    replyRequests: () => chatBodies(vllm).filter((body) => !body.response_format),
    structuredRequests: (name) =>
      chatBodies(vllm).filter((body) => body.response_format?.json_schema?.name === name),
    async register(name = `User${++users}`) {
      const email = `${name.toLowerCase()}-${Date.now()}-${users}@example.com`;
      const res = await http(undefined, 'POST', '/v1/auth/register', {
        email,
        password: 'a good passphrase',
        displayName: name,
      });
      if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { token: res.body.accessToken, userId: res.body.userId };
    },
    async registerWithRoles(roles) {
      const email = `staff-${Date.now()}-${++users}@example.com`;
      const password = 'a good passphrase';
      const res = await http(undefined, 'POST', '/v1/auth/register', {
        email,
        password,
        displayName: 'Staff',
      });
      await db.query('UPDATE users SET roles = $1 WHERE id = $2', [roles, res.body.userId]);
      const login = await http(undefined, 'POST', '/v1/auth/login', { email, password });
      return { token: login.body.accessToken, userId: res.body.userId };
    },
    async startPeer(peerEnv = {}) {
      const peer = await startApp('chat-gateway', { ...gatewayEnv, ...peerEnv });
      peers.push(peer);
      return peer;
    },
    connect: (token) => connectTo(gateway.url, token),
    connectTo,
    async close() {
      sockets.forEach((s) => s.disconnect());
      await Promise.all([gateway, ...peers].map((app) => app.stop()));
      await vllm.close();
      await db.destroy();
      await database.drop();
    },
  };
}

export interface TurnEvents {
  ack: { userMessageId: string; replyId: string } | { error: { code: string } };
  deltas: { index: number; delta: string; replyId: string }[];
  done?: any;
  error?: any;
}

/** Sends one message and collects everything the server says about it until done or error. */
export async function sendAndCollect(
  socket: Socket,
  payload: Record<string, unknown>,
  timeoutMs = 20_000,
): Promise<TurnEvents> {
  const events: TurnEvents = { ack: { error: { code: 'none' } }, deltas: [] };
  const onDelta = (d: TurnEvents['deltas'][number]) => events.deltas.push(d);
  socket.on('message:delta', onDelta);
  let timer: NodeJS.Timeout | undefined;
  try {
    const finished = new Promise<void>((resolve) => {
      socket.once('message:done', (done) => ((events.done = done), resolve()));
      socket.once('message:error', (error) => ((events.error = error), resolve()));
    });
    events.ack = await socket.timeout(timeoutMs).emitWithAck('message:send', payload);
    await Promise.race([
      finished,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no done/error')), timeoutMs))),
    ]);
    return events;
  } finally {
    // A pending timer would keep Jest from exiting once the suite is done.
    clearTimeout(timer);
    socket.off('message:delta', onDelta);
    socket.off('message:done');
    socket.off('message:error');
  }
}

function chatBodies(vllm: FakeVllm): ChatRequestBody[] {
  return vllm.requests
    .filter((request) => request.path === '/v1/chat/completions')
    .map((request) => request.body as ChatRequestBody);
}
