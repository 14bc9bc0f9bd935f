import { type chatTurnCompletedV1, type EventOf, TOPICS } from '@echoloop/contracts';
import {
  type AppProcess,
  type FakeVllm,
  findOnTopic,
  testKafka,
  uniqueName,
  waitFor,
} from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { startJudgedLabeller } from '../experiments/ab-fixture';

type TurnEvent = EventOf<typeof chatTurnCompletedV1>;

const ROOT = path.resolve(__dirname, '../..');
const TURNS = TOPICS.chatTurnCompleted;

/** `./echoloop dlq ...` as an operator types it, signed in with the admin's access token. */
async function dlq(gateway: string, token: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(path.join(ROOT, 'echoloop'), ['dlq', ...args], {
      cwd: ROOT,
      env: { ...process.env, GATEWAY_URL: gateway, ECHOLOOP_TOKEN: token },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('dead letters: parked messages are listed, inspected, fixed and replayed (counted once), or dropped', () => {
  let f: ChatFixture;
  let labeller: AppProcess;
  let judge: FakeVllm;
  let admin: { token: string; userId: string };
  let template: TurnEvent;
  let workDir: string;

  /** A turn of the template's conversation stored as the gateway stores one; its event, not yet published. */
  async function storedTurn(text: string): Promise<TurnEvent> {
    const { payload } = template;
    const userMessageId = randomUUID();
    const replyId = randomUUID();
    const at = new Date();
    const repliedAt = new Date(at.getTime() + 5);
    await f.db.query(
      `INSERT INTO messages (id, conversation_id, role, content, created_at) VALUES ($1, $2, 'user', $3, $4)`,
      [userMessageId, payload.conversationId, text, at],
    );
    await f.db.query(
      `INSERT INTO messages (id, conversation_id, role, content, parent_id, created_at)
       VALUES ($1, $2, 'assistant', 'I am here with you.', $3, $4)`,
      [replyId, payload.conversationId, userMessageId, repliedAt],
    );
    return {
      ...template,
      eventId: randomUUID(),
      occurredAt: repliedAt.toISOString(),
      payload: {
        ...payload,
        turnId: replyId,
        userMessage: { id: userMessageId, content: text, createdAt: at.toISOString() },
        assistantMessage: {
          ...payload.assistantMessage,
          id: replyId,
          content: 'I am here with you.',
          createdAt: repliedAt.toISOString(),
        },
        history: [],
      },
    };
  }

  async function publish(key: string, value: string) {
    const producer = testKafka('dead-letters-test').producer();
    await producer.connect();
    await producer.send({ topic: TURNS, messages: [{ key, value }] });
    await producer.disconnect();
  }

  const labelled = async (turnId: string) =>
    (
      (await f.db.query(
        `SELECT 1 FROM reward_turns WHERE turn_id = $1 AND cardinality(labelled_versions) > 0`,
        [turnId],
      )) as unknown[]
    ).length > 0;

  /** The letter the mirror made of the message with this key, once it is there. */
  const parkedWithKey = (key: string) =>
    waitFor(
      async () => {
        const page = await f.http(
          admin.token,
          'GET',
          `/v1/dead-letters?topic=${TURNS}&status=parked&limit=100`,
        );
        return (page.body.items as { id: string; key: string }[]).find((letter) => letter.key === key);
      },
      { timeoutMs: 60_000, intervalMs: 250, what: `a parked letter with key ${key}` },
    );

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'dead-letters-'));
    f = await startChatFixture({
      DEAD_LETTERS_MIRROR: 'true',
      DEAD_LETTERS_GROUP_ID: uniqueName('dead-letters'),
      TRAINING_CONSENT_DEFAULT: 'true',
    });
    ({ labeller, judge } = await startJudgedLabeller(f));
    admin = await f.registerWithRoles(['admin']);
    // One real turn, through the gateway, gives the conversation and the shape of its events.
    const user = await f.register('Sam');
    const { body: key } = await f.http(user.token, 'POST', '/v1/me/api-keys', { name: 'dlq-client' });
    const answered = await fetch(`${f.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content: 'Rough week.' }] }),
    });
    expect(answered.status).toBe(200);
    const [row] = (await f.db.query(
      `SELECT payload FROM outbox WHERE topic = $1 AND payload->'payload'->>'userId' = $2`,
      [TURNS, user.userId],
    )) as { payload: TurnEvent }[];
    template = row!.payload;
  });
  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
    await rm(workDir, { recursive: true, force: true });
  });

  it('fixes a poisoned turn event and replays it: labelled once, however often it comes back', async () => {
    const turn = await storedTurn('Nobody listens to me at work.');
    const key = turn.payload.conversationId;
    // A producer's bug: a finish reason no contract knows.
    const poisoned = {
      ...turn,
      payload: {
        ...turn.payload,
        assistantMessage: { ...turn.payload.assistantMessage, finishReason: 'exploded' },
      },
    };
    await publish(key, JSON.stringify(poisoned));

    const parked = await parkedWithKey(key);
    const listed = await dlq(f.gateway.url, admin.token, 'list', '--topic', TURNS, '--status', 'parked');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${parked.id}\\s+${TURNS.replaceAll('.', '\\.')}\\s+invalid\\s+parked`, 'm'),
    );
    const inspected = await dlq(f.gateway.url, admin.token, 'inspect', parked.id);
    expect(inspected.code).toBe(0);
    const detail = JSON.parse(inspected.stdout);
    expect(detail).toMatchObject({ kind: 'invalid', status: 'parked', eventId: null, event: poisoned });
    expect(detail.error).toContain('finishReason');
    expect(await labelled(turn.payload.turnId)).toBe(false);

    // As it is, it is still invalid: refused, and still parked.
    const asItIs = await dlq(f.gateway.url, admin.token, 'replay', parked.id);
    expect(asItIs.code).toBe(3);
    expect(asItIs.stderr).toContain('still does not satisfy');
    expect((await f.http(admin.token, 'GET', `/v1/dead-letters/${parked.id}`)).body.status).toBe('parked');

    const fixedFile = path.join(workDir, 'fixed.json');
    await writeFile(fixedFile, JSON.stringify(turn));
    const replayed = await dlq(f.gateway.url, admin.token, 'replay', parked.id, '--event', fixedFile);
    expect(replayed.stderr).toBe('');
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain(`as event ${turn.eventId}`);
    await waitFor(() => labelled(turn.payload.turnId), {
      timeoutMs: 60_000,
      what: 'the replayed turn labelled',
    });

    // Replayed once only; the same event delivered again (a producer's retry) changes nothing.
    const again = await dlq(f.gateway.url, admin.token, 'replay', parked.id, '--event', fixedFile);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('replayed already');
    await publish(key, JSON.stringify(turn));
    // The same key keeps its order: once the turn after it is labelled, the duplicate was handled.
    const after = await storedTurn('Thanks for listening.');
    await publish(key, JSON.stringify(after));
    await waitFor(() => labelled(after.payload.turnId), {
      timeoutMs: 60_000,
      what: 'the next turn labelled',
    });

    const [{ rows, components }] = (await f.db.query(
      `SELECT count(*)::int AS rows, count(DISTINCT component)::int AS components FROM reward_labels WHERE turn_id = $1`,
      [turn.payload.turnId],
    )) as [{ rows: number; components: number }];
    expect(components).toBeGreaterThan(0);
    expect(rows).toBe(components);
    const announced = await findOnTopic(
      testKafka('dead-letters-labelled'),
      TOPICS.rewardTurnLabelled,
      (m) => JSON.parse(String(m.value)).payload.turnId === turn.payload.turnId,
    );
    expect(announced).toHaveLength(1);
    const analyst = await f.registerWithRoles(['analyst']);
    const turns = await f.http(analyst.token, 'GET', `/v1/turns?conversationId=${key}&limit=100`);
    expect(turns.status).toBe(200);
    expect(turns.body.items.filter((t: { turnId: string }) => t.turnId === turn.payload.turnId)).toHaveLength(
      1,
    );

    const letter = (await f.http(admin.token, 'GET', `/v1/dead-letters/${parked.id}`)).body;
    expect(letter).toMatchObject({
      status: 'replayed',
      replayedEventId: turn.eventId,
      resolvedBy: `user:${admin.userId}`,
    });
    const metrics = await (await fetch(`${f.gateway.url}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`dead_letters_resolved_total\\{[^}]*topic="${TURNS}"[^}]*action="replayed"[^}]*\\} 1`),
    );
  });

  it('drops a letter nobody can fix, which then no longer counts as parked; people without admin see none', async () => {
    const key = `garbage-${randomUUID()}`;
    await publish(key, '{"not": "a turn"');
    const parked = await parkedWithKey(key);
    const before = await f.http(admin.token, 'GET', '/v1/dead-letters/topics');
    const parkedOn = (body: { items: { topic: string; parked: number }[] }) =>
      body.items.find((t) => t.topic === TURNS)?.parked ?? 0;
    expect(parkedOn(before.body)).toBeGreaterThanOrEqual(1);

    const dropped = await dlq(f.gateway.url, admin.token, 'drop', parked.id);
    expect(dropped.code).toBe(0);
    // Other suites park letters on the same topic meanwhile, so the letter itself is checked, not the topic's count.
    expect((await f.http(admin.token, 'GET', `/v1/dead-letters/${parked.id}`)).body).toMatchObject({
      status: 'dropped',
    });
    const stillParked = await f.http(
      admin.token,
      'GET',
      `/v1/dead-letters?topic=${TURNS}&status=parked&limit=100`,
    );
    expect((stillParked.body.items as { id: string }[]).map((l) => l.id)).not.toContain(parked.id);
    expect((await dlq(f.gateway.url, admin.token, 'drop', parked.id)).code).toBe(3);

    const user = await f.register('Curious');
    expect((await f.http(user.token, 'GET', '/v1/dead-letters')).status).toBe(403);
    expect((await f.http(undefined, 'GET', '/v1/dead-letters')).status).toBe(401);
    expect((await f.http(admin.token, 'GET', '/v1/dead-letters/not-an-id')).status).toBe(400);
    expect((await f.http(admin.token, 'GET', '/v1/dead-letters/999999999')).status).toBe(404);
  });
});
