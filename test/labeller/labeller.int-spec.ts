import { TOPICS } from '@echoloop/contracts';
import { OUTBOX_CHANNEL } from '@echoloop/platform';
import { Client } from 'pg';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { compositeReward, DEFAULT_REWARD_CONFIG } from '@echoloop/rewards';
import { findOnTopic, replyByRules, testKafka, waitFor } from '@echoloop/testing';
import { insertApiKey } from '../api-keys/insert-api-key';
import {
  DEFAULT_JUDGE_RULES,
  JUDGE_SYSTEM,
  type LabellerFixture,
  startLabellerFixture,
  waitFinished,
} from './labeller-fixture';

const run = promisify(execFile);

describe('reward labeller on the real Kafka and PostgreSQL', () => {
  let f: LabellerFixture;

  beforeAll(async () => {
    f = await startLabellerFixture();
  });
  afterAll(async () => {
    await f?.close();
  });
  afterEach(() => {
    f.judge.setReply(replyByRules(DEFAULT_JUDGE_RULES));
    f.judge.setFaults(undefined);
  });

  const byComponent = async (turnId: string) =>
    Object.fromEntries((await f.labels(turnId)).map((label) => [label.component, label]));

  it('scores each turn with every component, the live emotion from the next user message, and announces it once', async () => {
    const c = await f.conversation();
    const first = await c.turn(
      'I failed my driving test again today.',
      'Oh no, that is so frustrating. What happened?',
    );
    const second = await c.turn(
      'thanks, it helps to say it out loud',
      'Any time. Do you want to try again soon?',
    );
    await c.publish(first, second);
    await waitFinished(f, first.turnId);

    const a = await byComponent(first.turnId);
    expect(a['empathy']).toMatchObject({
      status: 'labelled',
      value: 0.75,
      label: '4',
      judge_model: 'judge-model',
      prompt_version: 'empathy-genrm-v1',
      raw_output: 'It names the feeling and asks.\nVerdict: 4',
    });
    expect(a['humanlike']).toMatchObject({ status: 'labelled', value: 1, label: 'humanlike' });
    // RLVER scale: 40 + 6 = 46, bucket B; the reward is the delta over its bound.
    expect(a['live_emotion']).toMatchObject({ status: 'labelled', value: 0.6, label: 'B' });
    expect(a['live_emotion']?.details).toMatchObject({ delta: 6, scoreBefore: 40, scoreAfter: 46 });
    expect(a['implicit']).toMatchObject({ status: 'labelled' });
    expect(a['implicit']?.details).toMatchObject({ continued: true, nextMessageChars: 35 });

    // The humanlike judge saw the dialogue, not the reply alone; the analyser saw the user's next message.
    const bodies = f.judge.requests.map((r) => JSON.stringify(r.body));
    expect(
      bodies.some((b) => b.includes(JUDGE_SYSTEM.humanlike) && b.includes('I failed my driving test')),
    ).toBe(true);
    expect(bodies.some((b) => b.includes(JUDGE_SYSTEM.emotion) && b.includes('thanks, it helps'))).toBe(true);

    // The last turn has no next message: after LEAVE_AFTER_MS the user's leaving is its live emotion signal.
    await waitFinished(f, second.turnId);
    const b = await byComponent(second.turnId);
    expect(b['live_emotion']).toMatchObject({ status: 'labelled', label: 'left', value: -0.5 });
    expect(b['implicit']?.details).toMatchObject({ continued: false });

    const events = await findOnTopic(
      testKafka('labeller-it'),
      TOPICS.rewardTurnLabelled,
      (m) => String(m.key) === c.id,
      2,
    );
    const payloads = events.map((m) => JSON.parse(String(m.value)).payload);
    expect(payloads.map((p) => p.turnId).sort()).toEqual([first.turnId, second.turnId].sort());
    const firstEvent = payloads.find((p) => p.turnId === first.turnId);
    const expected = compositeReward(
      { empathy: 0.75, humanlike: 1, live_emotion: 0.6, implicit: a['implicit']!.value! },
      DEFAULT_REWARD_CONFIG,
    );
    expect(firstEvent.composite.value).toBeCloseTo(expected.value, 10);
    expect(firstEvent).toMatchObject({ labellerVersion: 'labeller-v1', emotionScore: 46 });
  });

  it('notifies on every outbox write of labels (a batch and a single turn), so relays in any process wake at once', async () => {
    // The fixture writes turns straight to the tables and Kafka: the labeller is the only outbox writer here.
    const listener = new Client({ connectionString: f.env['DATABASE_URL'] });
    await listener.connect();
    let notifications = 0;
    listener.on('notification', (message) => {
      if (message.channel === OUTBOX_CHANNEL) notifications++;
    });
    try {
      await listener.query(`LISTEN ${listener.escapeIdentifier(OUTBOX_CHANNEL)}`);
      // The first turn is finished in the batch that brings its next message, the second after the user left:
      // two outbox writes, in two transactions.
      const c = await f.conversation();
      const first = await c.turn('my plant finally flowered', 'That is lovely! What kind is it?');
      const second = await c.turn('a tiny orchid, thanks for asking', 'Orchids are patient plants.');
      await c.publish(first, second);
      await waitFinished(f, first.turnId);
      await waitFinished(f, second.turnId);
      await waitFor(() => notifications >= 2, { what: 'a notification for each labelled event' });
    } finally {
      await listener.end();
    }
  });

  it('retries an unparseable judge answer once, then marks the component failed; the turn still finishes', async () => {
    f.judge.setReply(
      replyByRules([
        {
          when: { systemIncludes: JUDGE_SYSTEM.humanlike, anyMessageIncludes: 'zebra' },
          reply: 'Looks fine to me!',
        },
        ...DEFAULT_JUDGE_RULES,
      ]),
    );
    const c = await f.conversation();
    const turn = await c.turn('I saw a zebra at the zoo', 'Wow, how close did you get?');
    await c.publish(turn);
    await waitFinished(f, turn.turnId);
    const labels = await byComponent(turn.turnId);
    expect(labels['humanlike']).toMatchObject({
      status: 'failed',
      value: null,
      raw_output: 'Looks fine to me!',
    });
    expect(labels['humanlike']?.error).toMatch(/no_label/);
    expect(labels['empathy']).toMatchObject({ status: 'labelled' });
    const humanlikeCalls = f.judge.requests.filter((r) => {
      const body = JSON.stringify(r.body);
      return body.includes(JUDGE_SYSTEM.humanlike) && body.includes('zebra');
    });
    expect(humanlikeCalls).toHaveLength(2);
  });

  it('a judge that times out (after one retry) marks the component failed instead of hanging', async () => {
    f.judge.setFaults((request) =>
      JSON.stringify(request.messages).includes('glacier') &&
      request.messages[0]?.content.includes(JUDGE_SYSTEM.empathy)
        ? { delayBeforeFirstTokenMs: 5_000 }
        : undefined,
    );
    const c = await f.conversation();
    const turn = await c.turn('We hiked to the glacier', 'That sounds amazing, how was the view?');
    await c.publish(turn);
    await waitFinished(f, turn.turnId);
    const labels = await byComponent(turn.turnId);
    expect(labels['empathy']).toMatchObject({ status: 'failed', value: null });
    expect(labels['empathy']?.error).toMatch(/model_timeout/);
    expect(labels['humanlike']).toMatchObject({ status: 'labelled' });
  });

  it('a duplicate or replayed event never makes a second label or a second announcement', async () => {
    const c = await f.conversation();
    const turn = await c.turn('Just a quick hello', 'Hello! Nice to hear from you.');
    await c.publish(turn, turn);
    await waitFinished(f, turn.turnId);
    await c.publish(turn);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [{ count }] = await f.db.query(
      'SELECT count(*)::int AS count FROM reward_labels WHERE turn_id = $1',
      [turn.turnId],
    );
    expect(count).toBe(4);
    const events = await findOnTopic(
      testKafka('labeller-dup'),
      TOPICS.rewardTurnLabelled,
      (m) => String(m.key) === c.id,
      1,
    );
    expect(new Set(events.map((m) => JSON.parse(String(m.value)).payload.turnId)).size).toBe(1);
    expect(events).toHaveLength(1);
  });

  it('sends poison events to the dead-letter topic with the error, and keeps going', async () => {
    const key = `poison-${Date.now()}`;
    const producer = testKafka('poison').producer();
    await producer.connect();
    await producer.send({ topic: TOPICS.chatTurnCompleted, messages: [{ key, value: '{"not": "a turn"' }] });
    await producer.disconnect();
    const [dead] = await findOnTopic(
      testKafka('poison-dlq'),
      `${TOPICS.chatTurnCompleted}.dlq`,
      (m) => String(m.key) === key,
    );
    expect(String(dead?.headers?.['dlq-error-kind'])).toBe('invalid');
    const c = await f.conversation();
    const turn = await c.turn('Still there?', 'Always here.');
    await c.publish(turn);
    await waitFinished(f, turn.turnId);
  });

  it('serves the same reward models to training jobs at POST /v1/rewards/score, with a scoped API key only', async () => {
    const item = {
      history: [{ role: 'user', content: 'I finally finished my thesis' }],
      reply: 'Congratulations! How does it feel?',
      reference: 'That is huge, congratulations! You worked so hard.',
      nextUserMessage: 'thanks, feels unreal',
    };
    const unauthenticated = await fetch(`${f.labeller.url}/v1/rewards/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [item] }),
    });
    expect(unauthenticated.status).toBe(401);
    const score = async (apiKey: string) => {
      const res = await fetch(`${f.labeller.url}/v1/rewards/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ items: [] }),
      });
      return { status: res.status, code: ((await res.json()) as any).error?.code };
    };
    const gatewayOnly = await insertApiKey(f.db, { roles: ['experimenter'], services: ['chat-gateway'] });
    expect(await score(gatewayOnly.key)).toEqual({ status: 403, code: 'api_key_service_not_allowed' });
    const user = await insertApiKey(f.db, { roles: ['user'], services: ['reward-labeller'] });
    expect(await score(user.key)).toEqual({ status: 403, code: 'api_key_role_not_allowed' });
    const { key } = await insertApiKey(f.db, {
      name: 'trainer',
      roles: ['experimenter'],
      services: ['reward-labeller'],
    });
    f.judge.setReply(
      replyByRules([
        {
          when: { systemIncludes: JUDGE_SYSTEM.empathy, anyMessageIncludes: 'You worked so hard' },
          reply: 'Similar.\nVerdict: tie',
        },
        ...DEFAULT_JUDGE_RULES,
      ]),
    );
    const res = await fetch(`${f.labeller.url}/v1/rewards/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ items: [item] }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const components = Object.fromEntries(
      body.items[0].components.map((c: { component: string }) => [c.component, c]),
    );
    expect(components).toMatchObject({
      empathy: { value: 0.5, label: 'tie' },
      humanlike: { value: 1 },
      live_emotion: { value: 0.6, label: 'B' },
    });
    const bad = await fetch(`${f.labeller.url}/v1/rewards/score`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ items: [{ ...item, history: [{ role: 'assistant', content: 'hi' }] }] }),
    });
    expect(bad.status).toBe(400);
  });

  it('re-labels a time range with a new labeller version from the command line, showing progress', async () => {
    const c = await f.conversation();
    const first = await c.turn('Work was rough today', 'I am sorry. What made it rough?');
    const second = await c.turn('thanks for asking, my boss yelled', 'That sounds awful. Are you okay?');
    await c.publish(first, second);
    await waitFinished(f, second.turnId);
    const from = new Date(Date.parse(first.assistantMessage.createdAt) - 1).toISOString();
    const to = new Date(Date.parse(second.assistantMessage.createdAt) + 1).toISOString();
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '-r',
        '@swc-node/register',
        'apps/reward-labeller/src/backfill/main.ts',
        '--from',
        from,
        '--to',
        to,
        '--version',
        'labeller-v2',
      ],
      { env: { ...process.env, ...f.env, SWC_NODE_PROJECT: 'tsconfig.base.json', LEAVE_AFTER_MS: '1' } },
    );
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({
      version: 'labeller-v2',
      done: 2,
      total: 2,
    });
    expect(stderr).toContain('backfill labeller-v2: 2/2 turns (100%)');
    const versions = (await f.db.query(
      'SELECT labeller_version, count(*)::int AS n FROM reward_labels WHERE turn_id = ANY($1) GROUP BY 1 ORDER BY 1',
      [[first.turnId, second.turnId]],
    )) as { labeller_version: string; n: number }[];
    expect(versions).toEqual([
      { labeller_version: 'labeller-v1', n: 8 },
      { labeller_version: 'labeller-v2', n: 8 },
    ]);
    const [v2] = (await f.db.query(
      `SELECT label, details FROM reward_labels WHERE turn_id = $1 AND component = 'live_emotion' AND labeller_version = 'labeller-v2'`,
      [first.turnId],
    )) as { label: string; details: { scoreAfter: number } }[];
    expect(v2).toMatchObject({ label: 'B', details: { scoreAfter: 46 } });
  }, 120_000);

  it('exposes lag, throughput, judge latency and failures, and labels per component as metrics', async () => {
    const text = await waitFor(async () => {
      const body = await (await fetch(`${f.labeller.url}/metrics`)).text();
      return body.includes('labeller_consumer_lag_messages') && body;
    });
    for (const name of [
      'labeller_turns_received_total',
      'labeller_judge_latency_seconds_bucket',
      'labeller_judge_failures_total',
      'labeller_labels_total',
    ]) {
      expect(text).toContain(name);
    }
  });
});
