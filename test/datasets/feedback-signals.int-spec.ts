import { waitFor } from '@echoloop/testing';
import { type LabelledChat, startLabelledChat } from './labelled-chat';

interface Turn {
  /** The reply's id. */
  turnId: string;
  feedback: { thumbs: number | null; tags: string[]; comment: string | null };
}

describe('feedback tags and comments reach the labelled turn, its filters and the turns export, PII redacted', () => {
  let chat: LabelledChat;
  const ask = async (content: string) => (await chat.ask(content)).replyId;
  const turnsOf = (query: string) => chat.turnsOf<Turn>(query);
  const ids = (turns: Turn[]) => turns.map((t) => t.turnId);
  /** An export made through the API, read back once it succeeded. */
  const exported = async <T>(kind: string, filters: Record<string, unknown>): Promise<T[]> => {
    const started = await chat.f.http(chat.analystToken, 'POST', '/v1/exports', {
      kind,
      format: 'jsonl',
      filters,
    });
    expect(started.status).toBe(202);
    await waitFor(
      async () =>
        (await chat.f.http(chat.analystToken, 'GET', `/v1/exports/${started.body.id}`)).body.status ===
        'succeeded',
      { timeoutMs: 30_000, what: 'the export done' },
    );
    const file = await fetch(`${chat.f.gateway.url}/v1/exports/${started.body.id}/download`, {
      headers: { authorization: `Bearer ${chat.analystToken}` },
    });
    return (await file.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as T);
  };

  beforeAll(async () => {
    chat = await startLabelledChat('feedback-signals');
  });
  afterAll(() => chat?.close());

  it('lists tags and the redacted comment, filters by tag and by comment, and clears what was taken back', async () => {
    const commented = await ask('I lost my job today.');
    const plain = await ask('I found a new job today.');
    const feedback = await chat.f.http(chat.key, 'POST', `/v1/messages/${commented}/feedback`, {
      thumb: 'down',
      tags: ['too long', 'cold', 'cold'],
      comment: 'Too long. Write to me at robin.hale@example.com instead.',
    });
    expect(feedback.status).toBe(200);
    expect(
      (await chat.f.http(chat.key, 'POST', `/v1/messages/${plain}/feedback`, { thumb: 'up' })).status,
    ).toBe(200);

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
    expect((await chat.f.http(chat.analystToken, 'GET', '/v1/turns?hasComment=maybe')).status).toBe(400);

    // The turns export carries them the same way, through the same filters.
    const rows = await exported<Turn>('turns', { tag: 'too long' });
    expect(rows.find((r) => r.turnId === commented)?.feedback).toEqual(tagged.feedback);
    expect(rows.map((r) => r.turnId)).not.toContain(plain);

    // Taken back: the comment cleared and the tags emptied on the labelled turn too.
    await chat.f.http(chat.key, 'POST', `/v1/messages/${commented}/feedback`, { comment: null, tags: [] });
    const cleared = await turnOf(commented, (t) => t.feedback.tags.length === 0);
    expect(cleared.feedback).toMatchObject({ thumbs: -1, tags: [], comment: null });
    expect(ids(await turnsOf('hasComment=true&limit=100'))).not.toContain(commented);
  });

  it("carries each side's tags and redacted comment into a preference pair", async () => {
    // The same history sent again is a swipe: two alternatives of one message, the user rates them apart.
    const history = 'My sister stopped talking to me.';
    const liked = await ask(history);
    const disliked = await ask(history);
    expect(disliked).not.toBe(liked);
    for (const [reply, body] of [
      [liked, { thumb: 'up', tags: ['warm'] }],
      [
        disliked,
        { thumb: 'down', tags: ['preachy'], comment: 'Write to sam.lee@example.com and say it plainly.' },
      ],
    ] as const) {
      expect((await chat.f.http(chat.key, 'POST', `/v1/messages/${reply}/feedback`, body)).status).toBe(200);
    }
    await waitFor(
      async () => {
        const turns = await turnsOf('limit=100');
        const rated = (id: string) => turns.find((t) => t.turnId === id)?.feedback.thumbs != null;
        return rated(liked) && rated(disliked);
      },
      { timeoutMs: 60_000, what: 'both ratings on the labelled turns' },
    );
    const pairs = await exported<Record<string, any>>('preferences', {});
    expect(pairs.find((p) => p.chosenTurnId === liked && p.rejectedTurnId === disliked)).toMatchObject({
      source: 'rating',
      chosenNotes: { tags: ['warm'], comment: null },
      rejectedNotes: { tags: ['preachy'], comment: 'Write to [EMAIL] and say it plainly.' },
    });
  });
});
