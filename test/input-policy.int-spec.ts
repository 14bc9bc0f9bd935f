import { freshLabellerGroup, startApp, type AppProcess } from '@echoloop/testing';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { MIRA_CARD, startChatFixture, type ChatFixture } from './chat/chat-fixture';

/**
 * The input policy every app shares (libs/platform: bootstrap's body parsing, the error filter, the storable-text
 * walk): hostile bodies and ids get a clear 4xx in the error shape, never a 5xx, and the app stays healthy.
 */
const MB = 1_000_000;

interface Sent {
  status: number;
  body: { error?: { code?: string; message?: string; details?: { path: string; in?: string }[] } };
}

async function send(url: string, init: RequestInit & { headers?: Record<string, string> }): Promise<Sent> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Sent['body']) : {} };
}

const post = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  send(url, { method: 'POST', body, headers });

/** A JSON body whose one text field is `size` bytes long. */
const bigBody = (size: number) => JSON.stringify({ name: 'x'.repeat(size) });

/**
 * A route each app takes bodies on, under the app's default body limit (a real one where the app has one; the
 * parser runs before routing, so for the others any path shows the same).
 */
const BODY_ROUTE: Record<string, string> = {
  'chat-gateway': '/v1/auth/register',
  'reward-labeller': '/v1/rewards',
  'rl-orchestrator': '/v1/nothing-here',
  'eval-runner': '/v1/evaluations',
};
const APPS = Object.keys(BODY_ROUTE);

const expectError = (sent: Sent, status: number, code: string) => {
  expect({ status: sent.status, code: sent.body.error?.code }).toEqual({ status, code });
  expect(sent.body.error?.message).toEqual(expect.any(String));
};

let f: ChatFixture;
const running: Record<string, AppProcess> = {};

beforeAll(async () => {
  f = await startChatFixture();
  running['chat-gateway'] = f.gateway;
  for (const app of APPS.filter((a) => a !== 'chat-gateway')) {
    running[app] = await startApp(app, {
      DATABASE_URL: (f.db.options as { url: string }).url,
      LABELLER_GROUP_ID: await freshLabellerGroup(),
    });
  }
}, 180_000);

afterAll(async () => {
  for (const app of APPS.filter((a) => a !== 'chat-gateway')) await running[app]?.stop();
  await f?.close();
});

describe.each(APPS)('%s input policy', (app) => {
  const url = () => `${running[app]!.url}${BODY_ROUTE[app]}`;

  it.each([2 * MB, 20 * MB])('a %i-byte body is a 413 payload_too_large', async (size) => {
    expectError(await post(url(), bigBody(size)), 413, 'payload_too_large');
  });

  it('an unknown charset is a 415', async () => {
    const sent = await post(url(), '{}', { 'content-type': 'application/json; charset=klingon' });
    expectError(sent, 415, 'unsupported_charset');
  });

  it('an unknown content encoding is a 415', async () => {
    expectError(await post(url(), '{}', { 'content-encoding': 'br-x' }), 415, 'unsupported_encoding');
  });

  it('a truncated gzip body is a 400', async () => {
    const gzipped = gzipSync(Buffer.from(bigBody(10_000)));
    const sent = await post(url(), gzipped.subarray(0, gzipped.length - 20), { 'content-encoding': 'gzip' });
    expectError(sent, 400, 'malformed_body');
  });

  it('malformed JSON is a 400 that does not quote the body', async () => {
    const sent = await post(url(), '{"name": "secret-marker", oops');
    expectError(sent, 400, 'malformed_body');
    expect(JSON.stringify(sent.body)).not.toContain('secret-marker');
  });

  it.each([
    ['a NUL', 'a\\u0000b'],
    ['a lone surrogate', 'a\\ud800b'],
  ])('%s in a body field is a 400 validation_failed naming the field', async (_what, escaped) => {
    const sent = await post(url(), `{"outer": {"names": ["fine", "${escaped}"]}}`);
    expectError(sent, 400, 'validation_failed');
    expect(sent.body.error?.details).toEqual([
      expect.objectContaining({ path: 'outer.names.1', in: 'body' }),
    ]);
  });

  it('a body nested 5,000 levels deep is a 400', async () => {
    const sent = await post(url(), `${'['.repeat(5_000)}${']'.repeat(5_000)}`);
    expectError(sent, 400, 'validation_failed');
  });

  it('a NUL in the query is a 400 naming the parameter', async () => {
    const sent = await send(`${running[app]!.url}/health/live?name=a%00b`, { method: 'GET' });
    expectError(sent, 400, 'validation_failed');
    expect(sent.body.error?.details).toEqual([expect.objectContaining({ path: 'name', in: 'query' })]);
  });

  it('is still healthy after all of it', async () => {
    expect((await send(`${running[app]!.url}/health/ready`, { method: 'GET' })).status).toBe(200);
  });
});

describe('reward-labeller: the score batch limit fits the schema', () => {
  const score = () => `${running['reward-labeller']!.url}/v1/rewards/score`;

  it('a body the size of the largest valid batch passes the parser (then needs a key)', async () => {
    const items = [{ history: [{ role: 'user', content: 'x'.repeat(6 * MB) }], reply: 'y' }];
    expect([401, 403]).toContain((await post(score(), JSON.stringify({ items }))).status);
  });

  it('a 20 MB batch is a 413', async () => {
    expectError(await post(score(), bigBody(20 * MB)), 413, 'payload_too_large');
  });
});

describe('chat-gateway: ids, card files and socket events', () => {
  it('a NUL in a path id is a 400 naming the parameter', async () => {
    const { token } = await f.register();
    const sent = await send(`${f.gateway.url}/v1/characters/a%00b`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}` },
    });
    expectError(sent, 400, 'validation_failed');
    expect(sent.body.error?.details).toEqual([expect.objectContaining({ path: 'id', in: 'path' })]);
  });

  it('a card file holding a NUL is a 400 naming the card field, and nothing is stored', async () => {
    const { token } = await f.registerWithRoles(['admin']);
    const card = { ...MIRA_CARD, data: { ...MIRA_CARD.data, name: 'Nul', description: 'a\u0000b' } };
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify(card)], { type: 'application/json' }), 'card.json');
    const res = await fetch(`${f.gateway.url}/v1/characters/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const body = (await res.json()) as Sent['body'];
    expectError({ status: res.status, body }, 400, 'validation_failed');
    expect(body.error?.details).toEqual([expect.objectContaining({ path: 'card.data.description' })]);
    expect(await f.db.query(`SELECT 1 FROM characters WHERE name = 'Nul'`)).toEqual([]);
  });

  it('message:send with a lone surrogate is a message:error validation_failed, and nothing is stored', async () => {
    const { token } = await f.register();
    const conversation = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    expect(conversation.status).toBe(201);
    const conversationId = conversation.body.id as string;
    const socket = await f.connect(token);
    const error = new Promise<{ code: string; details: { path: string }[] }>((resolve) =>
      socket.once('message:error', resolve),
    );
    const ack = (await socket.timeout(10_000).emitWithAck('message:send', {
      conversationId,
      content: 'hello \ud800 there',
      clientMessageId: randomUUID(),
    })) as { error?: { code: string } };
    expect(ack.error?.code).toBe('validation_failed');
    expect(await error).toMatchObject({ code: 'validation_failed', details: [{ path: 'content' }] });
    const stored = (await f.db.query(`SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1`, [
      conversationId,
    ])) as { n: number }[];
    // The greeting is the conversation's only message.
    expect(stored[0]?.n).toBe(1);
    expect((await f.http(token, 'GET', '/health/live')).status).toBe(200);
  });
});
