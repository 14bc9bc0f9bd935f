import { type AppProcess, type FakeVllm, waitFor } from '@echoloop/testing';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { startJudgedLabeller } from '../experiments/ab-fixture';

interface Turn {
  /** The reply's id. */
  turnId: string;
  feedback: { thumbs: number | null; tags: string[]; comment: string | null };
}

describe('feedback tags and comments reach the labelled turn, its filters and the turns export, PII redacted', () => {
  let f: ChatFixture;
  let labeller: AppProcess;
  let judge: FakeVllm;
  let key: { key: string };
  let analyst: { token: string };

  /** One turn of a new conversation through the OpenAI-compatible endpoint; the reply's id. */
  const ask = async (content: string): Promise<string> => {
    const res = await fetch(`${f.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content }] }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };
  const turnsOf = async (query: string): Promise<Turn[]> => {
    const res = await f.http(analyst.token, 'GET', `/v1/turns?${query}`);
    expect(res.status).toBe(200);
    return res.body.items;
  };
  const ids = (turns: Turn[]) => turns.map((t) => t.turnId);

  beforeAll(async () => {
    f = await startChatFixture({ TRAINING_CONSENT_DEFAULT: 'true' });
    ({ labeller, judge } = await startJudgedLabeller(f));
    const user = await f.register('Robin');
    ({ body: key } = await f.http(user.token, 'POST', '/v1/me/api-keys', { name: 'feedback-signals' }));
    analyst = await f.registerWithRoles(['analyst']);
  });
  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
  });

  it('lists tags and the redacted comment, filters by tag and by comment, and clears what was taken back', async () => {
    const commented = await ask('I lost my job today.');
    const plain = await ask('I found a new job today.');
    const feedback = await f.http(key.key, 'POST', `/v1/messages/${commented}/feedback`, {
      thumb: 'down',
      tags: ['too long', 'cold', 'cold'],
      comment: 'Too long. Write to me at robin.hale@example.com instead.',
    });
    expect(feedback.status).toBe(200);
    expect((await f.http(key.key, 'POST', `/v1/messages/${plain}/feedback`, { thumb: 'up' })).status).toBe(
      200,
    );

    const turnOf = (reply: string, ready: (t: Turn) => boolean) =>
      waitFor(
        async () => {
          const turn = (await turnsOf('limit=100')).find((t) => t.turnId === reply);
          return turn !== undefined && ready(turn) && turn;
        },
        { timeoutMs: 60_000, what: 'the feedback on the labelled turn' },
      );
    const tagged = await turnOf(commented, (t) => t.feedback.tags.length > 0);
    expect(tagged.feedback).toMatchObject({ thumbs: -1, tags: ['too long', 'cold'] });
    expect(tagged.feedback.comment).toBe('Too long. Write to me at [EMAIL] instead.');
    await turnOf(plain, (t) => t.feedback.thumbs === 1);

    const cold = ids(await turnsOf('tag=cold&limit=100'));
    expect(cold).toContain(commented);
    expect(cold).not.toContain(plain);
    expect(ids(await turnsOf('tag=warm&limit=100'))).not.toContain(commented);
    const withComment = ids(await turnsOf('hasComment=true&limit=100'));
    expect(withComment).toContain(commented);
    expect(withComment).not.toContain(plain);
    const withoutComment = ids(await turnsOf('hasComment=false&limit=100'));
    expect(withoutComment).toContain(plain);
    expect(withoutComment).not.toContain(commented);
    expect((await f.http(analyst.token, 'GET', '/v1/turns?hasComment=maybe')).status).toBe(400);

    // The turns export carries them the same way, through the same filters.
    const started = await f.http(analyst.token, 'POST', '/v1/exports', {
      kind: 'turns',
      format: 'jsonl',
      filters: { tag: 'too long' },
    });
    expect(started.status).toBe(202);
    await waitFor(
      async () =>
        (await f.http(analyst.token, 'GET', `/v1/exports/${started.body.id}`)).body.status === 'succeeded',
      { timeoutMs: 30_000, what: 'the export done' },
    );
    const file = await fetch(`${f.gateway.url}/v1/exports/${started.body.id}/download`, {
      headers: { authorization: `Bearer ${analyst.token}` },
    });
    const rows = (await file.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Turn);
    const exported = rows.find((r) => r.turnId === commented);
    expect(exported?.feedback).toEqual(tagged.feedback);
    expect(rows.map((r) => r.turnId)).not.toContain(plain);

    // Taken back: the comment cleared and the tags emptied on the labelled turn too.
    await f.http(key.key, 'POST', `/v1/messages/${commented}/feedback`, { comment: null, tags: [] });
    const cleared = await turnOf(commented, (t) => t.feedback.tags.length === 0);
    expect(cleared.feedback).toMatchObject({ thumbs: -1, tags: [], comment: null });
    expect(ids(await turnsOf('hasComment=true&limit=100'))).not.toContain(commented);
  });
});
