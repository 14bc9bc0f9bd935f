import { TOPICS } from '@echoloop/contracts';
import { findOnTopic, replyByRules, replyWith, testKafka, waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

const CASUAL = [
  'omg lol my cat is sooo cute 😂😂 ngl',
  'haha yeah tbh im so tired rn 😅',
  'lol ok whatever u say 😂',
  'nah its fine lol 😎',
];

/** A counter of the gateway's, by outcome (0 before its first count). */
async function counter(f: ChatFixture, name: string, outcome: string): Promise<number> {
  const text = await (await fetch(`${f.gateway.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name) && l.includes(`outcome="${outcome}"`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

describe('live persona', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
    f.vllm.setReply(replyWith('Tell me more!'));
  });

  afterAll(async () => {
    await f?.close();
  });

  const lastSystemPrompt = () => f.replyRequests().at(-1)?.messages[0]?.content ?? '';

  const chat = async (token: string, messages: string[], prefix: string) => {
    const { body } = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const socket = await f.connect(token);
    const ids: string[] = [];
    for (const [i, content] of messages.entries()) {
      const turn = await sendAndCollect(socket, {
        conversationId: body.id,
        content,
        clientMessageId: `${prefix}${i}`,
      });
      expect(turn.error).toBeUndefined();
      ids.push((turn.ack as { userMessageId: string }).userMessageId);
    }
    return { conversationId: body.id as string, ids };
  };

  it('infers the user’s style turn by turn, steers the prompt with it, shows its evidence, and puts it in the event', async () => {
    const { token } = await f.register();
    const early = (outcome: string) => counter(f, 'chat_early_starts_total', outcome);
    const outcomes = ['kept', 'rebuilt', 'restarted'];
    const before = await Promise.all(outcomes.map(early));
    const { conversationId, ids } = await chat(token, CASUAL, 'c');
    // Each turn's model request started from the guess, before the message was stored (the first from what creating
    // the conversation read), and the guess was exactly the stored inputs (the greeting and history times, profile
    // and card as read back): the observations it took cite the stored message.
    const after = await Promise.all(outcomes.map(early));
    expect(after.map((n, k) => n - (before[k] ?? 0))).toEqual([CASUAL.length, 0, 0]);
    expect(lastSystemPrompt()).toContain('Adapt to this user:');
    expect(lastSystemPrompt()).toContain('emoji welcome');

    const profile = await f.http(token, 'GET', '/v1/me/profile');
    expect(profile.body.inferenceEnabled).toBe(true);
    type Evidence = { messageId: string; text: string | null };
    const fields = Object.values(profile.body.fields) as { confidence: number; evidence: Evidence[] }[];
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.flatMap((field) => field.evidence)).toEqual(
      expect.arrayContaining([{ messageId: ids.at(-1), text: CASUAL.at(-1) }]),
    );
    expect(fields.every((field) => field.confidence >= 0 && field.confidence <= 1)).toBe(true);

    const events = await findOnTopic(
      testKafka('persona'),
      TOPICS.chatTurnCompleted,
      (m) => String(m.key) === conversationId,
      4,
    );
    const snapshot = JSON.parse(String(events.at(-1)?.value)).payload.personaSnapshot;
    expect(Object.keys(snapshot.fields ?? {}).length).toBeGreaterThan(0);
  });

  it("a returning user's new conversation starts its first reply from what creating it read, profile included", async () => {
    const { token } = await f.register();
    await chat(token, CASUAL.slice(0, 2), 'p');
    const outcomes = ['kept', 'rebuilt', 'restarted'];
    const early = () => Promise.all(outcomes.map((o) => counter(f, 'chat_early_starts_total', o)));
    const before = await early();

    await chat(token, CASUAL.slice(2, 3), 'q');

    const after = await early();
    expect(after.map((n, k) => n - (before[k] ?? 0))).toEqual([1, 0, 0]);
    expect(lastSystemPrompt()).toContain('Adapt to this user:');
  });

  it('a reset forgets everything; turning inference off stops it and stores nothing', async () => {
    const { token } = await f.register();
    await chat(token, CASUAL, 'r');
    expect((await f.http(token, 'DELETE', '/v1/me/profile')).status).toBe(204);
    expect((await f.http(token, 'GET', '/v1/me/profile')).body.fields).toEqual({});

    const off = await f.http(token, 'PATCH', '/v1/me/profile', { inferenceEnabled: false });
    expect(off.body).toMatchObject({ inferenceEnabled: false, fields: {} });
    await chat(token, CASUAL, 'o');
    expect(lastSystemPrompt()).not.toContain('Adapt to this user:');
    expect((await f.http(token, 'GET', '/v1/me/profile')).body.fields).toEqual({});
    expect((await f.http(token, 'PATCH', '/v1/me/profile', { inferenceEnabled: 'no' })).status).toBe(400);
  });
});

const EXTRACTION_SYSTEM = 'infer who the user is';
const DIRECTOR_SYSTEM = 'You direct a conversation';
const PRACTICAL = [
  'My landlord wants to raise the rent by 30% next month.',
  'I have savings for about two months, no more.',
  'Should I look for a cheaper flat or try to negotiate first?',
  'What would you do first, concretely?',
  'Okay. And how do I even start that conversation with him?',
];

describe('deep persona extraction and the director', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
  });

  afterAll(async () => {
    await f?.close();
  });

  const chatOnce = async (token: string, conversationId: string, content: string, id: string) => {
    const socket = await f.connect(token);
    const turn = await sendAndCollect(socket, { conversationId, content, clientMessageId: id });
    socket.disconnect();
    expect(turn.error).toBeUndefined();
    return (turn.ack as { userMessageId: string }).userMessageId;
  };
  const newConversation = async (token: string) =>
    (await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId })).body.id as string;
  /** The conversation's director note, once the director (off the hot path) has stored one. */
  const directorNoteOf = async (conversationId: string) => {
    const [row] = await waitFor(
      async () => {
        const rows = await f.db.query(
          'SELECT director FROM conversations WHERE id = $1 AND director IS NOT NULL',
          [conversationId],
        );
        return rows.length > 0 && rows;
      },
      { what: 'the director note' },
    );
    return row;
  };
  const deepCounter = (outcome: string) => counter(f, 'persona_deep_extractions_total', outcome);

  it('reads the conversation with a JSON schema after a few turns, off the hot path, and its findings steer the next reply', async () => {
    // A scripted extractor citing every user message it was shown.
    const extractor = (request: { messages: { content: string }[] }) => {
      const shown = request.messages[1]?.content.match(/^\[\d+\] User:/gm)?.length ?? 0;
      const all = Array.from({ length: shown }, (_, k) => k + 1);
      return JSON.stringify({
        hiddenNeed: { value: 'practical-advice', confidence: 0.95, evidence: all },
        empathyAxis: { value: 'cognitive', confidence: 0.9, evidence: all },
      });
    };
    f.vllm.setReply((request) =>
      request.messages[0]?.content.includes(EXTRACTION_SYSTEM) ? extractor(request) : 'I see.',
    );
    const { token } = await f.register();
    const conversationId = await newConversation(token);
    const ids = [await chatOnce(token, conversationId, PRACTICAL[0]!, 'd0')];
    expect(lastSystemPrompt()).not.toContain('Offer concrete, practical advice.');
    expect(f.structuredRequests('user_profile')).toHaveLength(0);
    for (const [i, content] of PRACTICAL.slice(1, 4).entries()) {
      ids.push(await chatOnce(token, conversationId, content, `d${i + 1}`));
    }
    const profile = await waitFor(
      async () => {
        const body = (await f.http(token, 'GET', '/v1/me/profile')).body;
        return body.fields.empathyAxis?.value === 'cognitive' && body;
      },
      { what: 'the deep extraction to land in the profile' },
    );
    // The fast features see nothing of the first message: its evidence comes from the extraction.
    expect(profile.fields.hiddenNeed).toMatchObject({ value: 'practical-advice' });
    expect(profile.fields.empathyAxis.evidence).toEqual(
      expect.arrayContaining([{ messageId: ids[0], text: PRACTICAL[0] }]),
    );

    const extraction = f.structuredRequests('user_profile').at(-1);
    expect(extraction?.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { type: 'object', additionalProperties: false } },
    });
    expect(extraction?.messages[1]?.content).toContain(`[1] User: ${PRACTICAL[0]}`);

    await chatOnce(token, conversationId, PRACTICAL[4]!, 'd4');
    expect(lastSystemPrompt()).toContain('Offer concrete, practical advice.');
  });

  it.each([
    [
      'invalid JSON',
      '{"empathyAxis": {"value": "affective", "confidence": 0.9, "evidence": [1]}, "hiddenNeed": ',
    ],
    [
      'out-of-schema values',
      // One valid field beside an invalid one: the output is dropped whole, the valid part included.
      JSON.stringify({
        empathyAxis: { value: 'affective', confidence: 0.9, evidence: [1] },
        hiddenNeed: { value: 'world-domination', confidence: 2, evidence: [1] },
      }),
    ],
  ])('retries %s once, then drops it with a metric and stores nothing', async (_case, bad) => {
    f.vllm.setReply(replyByRules([{ when: { systemIncludes: EXTRACTION_SYSTEM }, reply: bad }], 'I see.'));
    const before = await deepCounter('invalid_output');
    const requestsBefore = f.structuredRequests('user_profile').length;
    const { token } = await f.register();
    const conversationId = await newConversation(token);
    const ids: string[] = [];
    for (const [i, content] of PRACTICAL.slice(0, 4).entries())
      ids.push(await chatOnce(token, conversationId, content, `b${i}`));
    await waitFor(async () => (await deepCounter('invalid_output')) > before, { what: 'the metric' });
    const attempts = f.structuredRequests('user_profile').slice(requestsBefore);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    const retry = attempts[1]!.messages;
    expect(retry.at(-1)?.content).toContain(`[1] User: ${PRACTICAL[0]}`);
    expect(retry.at(-1)?.content).toContain('That reply was not valid');
    // The first message shows no need or axis to the fast features: only the extraction could cite it there.
    const fields = (await f.http(token, 'GET', '/v1/me/profile')).body.fields;
    for (const name of ['hiddenNeed', 'empathyAxis']) {
      const cited = ((fields[name]?.evidence ?? []) as { messageId: string }[]).map((e) => e.messageId);
      expect(cited).not.toContain(ids[0]);
    }
    expect(fields.hiddenNeed?.value).not.toBe('world-domination');
  });

  it('the director fires on the fifth user turn, and its note guides the sixth reply only', async () => {
    f.vllm.setReply(
      replyByRules(
        [
          {
            when: { systemIncludes: DIRECTOR_SYSTEM },
            reply: { decision: 'new-topic', note: 'Ask about their weekend plans.' },
          },
        ],
        'I see.',
      ),
    );
    const { token } = await f.register();
    const conversationId = await newConversation(token);
    const directorCalls = () =>
      f
        .structuredRequests('director_decision')
        .filter((body) => body.messages[1]?.content.includes('of my day.')).length;
    const before = directorCalls();
    for (let turn = 1; turn <= 4; turn++)
      await chatOnce(token, conversationId, `Turn ${turn} of my day.`, `t${turn}`);
    expect(directorCalls()).toBe(before);
    await chatOnce(token, conversationId, 'Turn 5 of my day.', 't5');
    expect(lastSystemPrompt()).not.toContain('Direction for this reply');
    const row = await directorNoteOf(conversationId);
    expect(row.director).toMatchObject({
      turn: 5,
      decision: 'new-topic',
      note: 'Ask about their weekend plans.',
    });
    expect(directorCalls()).toBe(before + 1);
    const directorRequest = f.structuredRequests('director_decision').at(-1)!;
    expect(directorRequest.messages[1]?.content).toContain('User: Turn 5 of my day.');

    await chatOnce(token, conversationId, 'Turn 6 of my day.', 't6');
    expect(lastSystemPrompt()).toContain(
      'Direction for this reply: Gently open a new topic. Ask about their weekend plans.',
    );
    await chatOnce(token, conversationId, 'Turn 7 of my day.', 't7');
    expect(lastSystemPrompt()).not.toContain('Direction for this reply');
    expect(directorCalls()).toBe(before + 1);
  });

  it('numbers each sent message as a user turn, counting messages stored before numbering: the director still fires on the fifth', async () => {
    f.vllm.setReply(
      replyByRules(
        [{ when: { systemIncludes: DIRECTOR_SYSTEM }, reply: { decision: 'deepen', note: 'Ask why.' } }],
        'I see.',
      ),
    );
    const { token } = await f.register();
    const conversationId = await newConversation(token);
    // Three user turns stored without a number (as before numbering, or by another path), each with its reply.
    for (let turn = 1; turn <= 3; turn++)
      await f.db.query(
        `INSERT INTO messages (conversation_id, role, content, created_at)
         VALUES ($1, 'user', $2, now() - make_interval(mins => 10 - $3::int)),
                ($1, 'assistant', 'I see.', now() - make_interval(mins => 10 - $3::int, secs => -1))`,
        [conversationId, `Earlier ${turn}.`, turn],
      );
    await chatOnce(token, conversationId, 'Turn 4 of my week.', 'w4');
    await chatOnce(token, conversationId, 'Turn 5 of my week.', 'w5');
    const numbers = (await f.db.query(
      `SELECT user_turn FROM messages WHERE conversation_id = $1 AND role = 'user' ORDER BY created_at`,
      [conversationId],
    )) as { user_turn: number | null }[];
    expect(numbers.map((m) => m.user_turn)).toEqual([null, null, null, 4, 5]);
    const row = await directorNoteOf(conversationId);
    expect(row.director).toMatchObject({ turn: 5, decision: 'deepen' });
  });

  it('turns of one user in two conversations at once both add their evidence (no lost update)', async () => {
    f.vllm.setReply(replyWith('I see.'));
    const { token } = await f.register();
    const [a, b] = await Promise.all([newConversation(token), newConversation(token)]);
    const [idA, idB] = await Promise.all([
      chatOnce(token, a, 'hey whats up lol', 'pa'),
      chatOnce(token, b, 'Good evening. I would like to discuss my schedule, please.', 'pb'),
    ]);
    const fields = (await f.http(token, 'GET', '/v1/me/profile')).body.fields;
    const evidence = (fields.verbosity.evidence as { messageId: string }[]).map((e) => e.messageId);
    expect(evidence).toEqual(expect.arrayContaining([idA, idB]));
  });

  function lastSystemPrompt() {
    return f.replyRequests().at(-1)?.messages[0]?.content ?? '';
  }
});
