import { chatFeedbackV2, TOPICS } from '@echoloop/contracts';
import { exportDataset } from '@echoloop/datasets';
import {
  type AppProcess,
  type FakeVllm,
  findOnTopic,
  replyWith,
  testKafka,
  waitFor,
} from '@echoloop/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startJudgedLabeller } from '../experiments/ab-fixture';
import { type ChatFixture, startChatFixture } from './chat-fixture';

const ORIGINAL = 'Tests are like that. Anyway, what are you having for dinner?';
const EDITED = 'Oh no, after all that practice. That must really sting. How are you feeling about it now?';
const COMPARATIVE = 'Compare the candidate reply with the reference reply';

/** What the labeller stored of a turn: its signals and its labels by component. */
interface Stored {
  signals: Record<string, any>;
  labels: Record<string, { value: number | null; label: string | null; details: any }>;
}

describe('editing a reply: the conversation continues from the edit, which becomes a preference and a reference', () => {
  let f: ChatFixture;
  let labeller: AppProcess;
  let judge: FakeVllm;

  beforeAll(async () => {
    f = await startChatFixture();
    ({ labeller, judge } = await startJudgedLabeller(f, [
      {
        when: { systemIncludes: COMPARATIVE },
        reply: 'The reference meets the need better.\nVerdict: worse',
      },
    ]));
  });
  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
  });

  const stored = async (turnId: string): Promise<Stored | undefined> => {
    const [turn] = (await f.db.query(`SELECT signals FROM reward_turns WHERE turn_id = $1`, [turnId])) as {
      signals: Stored['signals'];
    }[];
    if (!turn) return undefined;
    const rows = (await f.db.query(
      `SELECT component, value, label, details FROM reward_labels WHERE turn_id = $1`,
      [turnId],
    )) as { component: string; value: number | null; label: string | null; details: any }[];
    return { signals: turn.signals, labels: Object.fromEntries(rows.map((r) => [r.component, r])) };
  };
  const empathyJudged = () => judge.requests.filter((r) => JSON.stringify(r.body).includes('how empathetic'));

  const exported = async (kind: 'preferences' | 'sft') => {
    const out = await mkdtemp(path.join(tmpdir(), 'echoloop-edits-'));
    try {
      const { dir } = await exportDataset({
        db: f.db,
        kind,
        format: 'jsonl',
        filters: {},
        outDir: out,
        privacy: { pseudonymKey: 'test-pseudonym-key-0123456789abcdef' },
        consentDefault: true,
      });
      return (await readFile(path.join(dir, `${kind}.jsonl`), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  };

  it('edits a reply: later turns read the edit, the labeller judges against it, exports pair it, exactly once', async () => {
    const { token } = await f.register();
    const other = await f.register();
    const { body: conversation } = await f.http(token, 'POST', '/v1/conversations', {
      characterId: f.characterId,
    });
    f.vllm.setReply(replyWith(ORIGINAL));
    const sent = await f.http(token, 'POST', `/v1/conversations/${conversation.id}/messages`, {
      content: 'I failed my driving test again',
      clientMessageId: 'e1',
    });
    expect(sent.status).toBe(201);
    const replyId: string = sent.body.reply.replyId;

    // Only the owner edits, only with text.
    expect((await f.http(other.token, 'PATCH', `/v1/messages/${replyId}`, { content: EDITED })).status).toBe(
      404,
    );
    for (const body of [{ content: '   ' }, { content: EDITED, role: 'user' }, {}])
      expect((await f.http(token, 'PATCH', `/v1/messages/${replyId}`, body)).status).toBe(400);

    const edited = await f.http(token, 'PATCH', `/v1/messages/${replyId}`, { content: EDITED });
    expect(edited).toMatchObject({
      status: 200,
      body: { id: replyId, content: EDITED, edited: { originalContent: ORIGINAL } },
    });
    const listed = await f.http(token, 'GET', `/v1/conversations/${conversation.id}/messages`);
    expect(listed.body.items.find((m: { id: string }) => m.id === replyId)).toMatchObject({
      content: EDITED,
      edited: { originalContent: ORIGINAL },
    });

    // The next turn continues from the edit.
    f.vllm.setReply(replyWith('I hear you.'));
    await f.http(token, 'POST', `/v1/conversations/${conversation.id}/messages`, {
      content: 'a bit better, thanks',
      clientMessageId: 'e2',
    });
    const prompt = JSON.stringify(f.replyRequests().at(-1)?.messages);
    expect(prompt).toContain(EDITED);
    expect(prompt).not.toContain(ORIGINAL);

    // The labeller hears of the edit: a strong implicit signal, and the reference its empathy is judged against.
    await waitFor(
      async () => (await stored(replyId))?.labels['empathy']?.details?.reference?.source === 'edit',
      { what: 'the empathy judged against the edit', timeoutMs: 30_000 },
    );
    await waitFor(async () => (await stored(replyId))?.labels['implicit'] !== undefined, {
      what: 'the turn finished',
      timeoutMs: 30_000,
    });
    const labelled = (await stored(replyId))!;
    expect(labelled.signals['edit']).toMatchObject({ content: EDITED });
    expect(labelled.labels['empathy']).toMatchObject({
      label: 'worse',
      value: 0,
      details: { mode: 'comparative', reference: { source: 'edit', turnId: replyId } },
    });
    expect(labelled.labels['implicit']?.details).toMatchObject({ edited: true });
    const comparative = empathyJudged().filter((r) => JSON.stringify(r.body).includes(COMPARATIVE));
    expect(comparative).toHaveLength(1);
    expect(JSON.stringify(comparative[0]?.body)).toContain(EDITED);

    // A redelivery of the edit changes nothing: no judge call, the same label.
    const [event] = await findOnTopic(
      testKafka('edits'),
      TOPICS.chatFeedbackV2,
      (m) => String(m.key) === conversation.id && String(m.value).includes('"kind":"edit"'),
    );
    await redeliver(String(event?.value), conversation.id);
    // A rating after it on the same key shows it was consumed.
    const rated = await f.http(token, 'POST', `/v1/messages/${replyId}/feedback`, { stars: 2 });
    expect(rated.status).toBe(200);
    await waitFor(async () => (await stored(replyId))?.signals['stars'] === 2, { what: 'the rating' });
    expect(empathyJudged().filter((r) => JSON.stringify(r.body).includes(COMPARATIVE))).toHaveLength(1);
    expect((await stored(replyId))?.labels['empathy']).toEqual(labelled.labels['empathy']);

    // In the exports: the edit over the model's reply, and the edit as an SFT example.
    const pairs = await exported('preferences');
    expect(pairs).toContainEqual(
      expect.objectContaining({
        source: 'edit',
        chosenTurnId: replyId,
        rejectedTurnId: replyId,
        chosen: [{ role: 'assistant', content: EDITED }],
        rejected: [{ role: 'assistant', content: ORIGINAL }],
      }),
    );
    expect(await exported('sft')).toContainEqual(
      expect.objectContaining({
        turnId: replyId,
        source: 'edit',
        reward: null,
        messages: expect.arrayContaining([{ role: 'assistant', content: EDITED }]),
      }),
    );

    // Writing the model's text again takes the edit back, everywhere.
    const undone = await f.http(token, 'PATCH', `/v1/messages/${replyId}`, { content: ORIGINAL });
    expect(undone).toMatchObject({ status: 200, body: { content: ORIGINAL, edited: null } });
    await waitFor(async () => (await stored(replyId))?.signals['edit'] === null, {
      what: 'the edit taken back',
    });
    await waitFor(async () => (await stored(replyId))?.labels['empathy']?.details?.mode === 'absolute', {
      what: 'the empathy judged on its own again',
    });
    expect((await exported('preferences')).filter((p) => p.source === 'edit')).toEqual([]);

    // Erasure takes the edit with the account.
    await f.http(token, 'PATCH', `/v1/messages/${replyId}`, { content: EDITED });
    expect((await f.http(token, 'DELETE', '/v1/me')).status).toBe(204);
    const left = (await f.db.query(
      `SELECT (SELECT count(*) FROM messages WHERE id = $1)::int AS messages,
              (SELECT count(*) FROM reward_turns WHERE turn_id = $1)::int AS turns`,
      [replyId],
    )) as { messages: number; turns: number }[];
    expect(left).toEqual([{ messages: 0, turns: 0 }]);
  });

  /** The same event (its id too) once more, as Kafka redelivers after a crash before the commit. */
  const redeliver = async (value: string, key: string) => {
    const producer = testKafka('edits-redelivery').producer();
    await producer.connect();
    await producer.send({ topic: chatFeedbackV2.topic, messages: [{ key, value }] });
    await producer.disconnect();
  };
});
