import {
  chatFeedbackV1,
  chatFeedbackV2,
  chatTurnCompletedV1,
  createEvent,
  TOPICS,
} from '@echoloop/contracts';
import { exportDataset } from '@echoloop/datasets';
import { findOnTopic, testKafka, waitFor } from '@echoloop/testing';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  type Conversation,
  JUDGE_SYSTEM,
  type LabellerFixture,
  startLabellerFixture,
  type TurnPayload,
  waitFinished,
} from './labeller-fixture';

/** Feedback as the gateway sends it: the user's whole current feedback on one reply. */
type Rating = { thumb: 'up' | 'down' | null; stars: number | null };

describe('feedback in the reward labeller: what it means, and whenever it comes', () => {
  let f: LabellerFixture;
  let experimentId: string;

  beforeAll(async () => {
    // Judges that answer slowly on purpose (below) are waited for.
    // A new conversation is a return however soon it comes (the gap's default is 30 min).
    f = await startLabellerFixture({ JUDGE_TIMEOUT_MS: '15000', RETURN_MIN_GAP_MS: '1' });
    const [{ id }] = (await f.db.query(
      `INSERT INTO experiments (name, status, seed, arms) VALUES ('feedback', 'running', 's', '[]') RETURNING id`,
    )) as [{ id: string }];
    experimentId = id;
  });
  afterAll(async () => {
    await f?.close();
  });

  const rate = async (c: Conversation, turn: TurnPayload, rating: Rating, eventId?: string) => {
    const event = createEvent(
      chatFeedbackV2,
      {
        kind: 'rating',
        conversationId: c.id,
        userId: c.userId,
        turnId: turn.turnId,
        checkpointId: 'base',
        comment: null,
        tags: [],
        ...rating,
      },
      'test',
    );
    await f.publisher.publish(chatFeedbackV2, eventId ? { ...event, eventId } : event, c.id);
  };
  const implicit = async (turnId: string) =>
    (await f.labels(turnId)).find((l) => l.component === 'implicit')?.value ?? null;
  const signals = async (turnId: string) =>
    (
      (await f.db.query(`SELECT signals FROM reward_turns WHERE turn_id = $1`, [turnId])) as {
        signals: any;
      }[]
    )[0]?.signals;
  const userMetric = async (userId: string, metric: string) =>
    (
      (await f.db.query(
        `SELECT count, total FROM experiment_user_metrics WHERE experiment_id = $1 AND user_id = $2 AND metric = $3`,
        [experimentId, userId, metric],
      )) as { count: number; total: number }[]
    )[0];
  const armMetric = async (metric: string) =>
    (
      (await f.db.query(
        `SELECT users, sum, turns FROM experiment_arm_metrics WHERE experiment_id = $1 AND arm_id = 'a' AND metric = $2`,
        [experimentId, metric],
      )) as { users: number; sum: number; turns: number }[]
    )[0];
  /** A turn in the experiment's arm `a`, answered by a next message, then finished. */
  const finishedTurn = async () => {
    const c = await f.conversation();
    const first = {
      ...(await c.turn('my cat is sick', 'Oh no, what did the vet say?')),
      experimentId,
      armId: 'a',
    };
    const second = await c.turn('thanks for asking', 'Of course.');
    await c.publish(first, second);
    await waitFinished(f, first.turnId);
    return { c, first };
  };

  it('a thumbs-up is liked and a 1-star rating disliked, in labels and in experiment results', async () => {
    const liked = await finishedTurn();
    const disliked = await finishedTurn();
    await rate(liked.c, liked.first, { thumb: 'up', stars: null });
    await rate(disliked.c, disliked.first, { thumb: null, stars: 1 });

    await waitFor(async () => (await implicit(liked.first.turnId)) === 1, {
      what: 'the thumbs-up in the reward',
    });
    await waitFor(
      async () =>
        (await implicit(disliked.first.turnId)) !== null &&
        (await signals(disliked.first.turnId)).stars === 1,
      {
        what: 'the star in the signals',
      },
    );
    expect(await implicit(disliked.first.turnId)).toBeLessThan(0);
    expect(await signals(disliked.first.turnId)).not.toHaveProperty('thumbs', 1);
    expect(await userMetric(liked.c.userId, 'thumbs_up')).toEqual({ count: 1, total: 1 });
    expect(await userMetric(disliked.c.userId, 'thumbs_up')).toEqual({ count: 1, total: 0 });
  });

  it('a rating after the next message moves the reward and the aggregates exactly once, redeliveries and re-ratings included', async () => {
    const { c, first } = await finishedTurn();
    const before = { implicit: await implicit(first.turnId), arm: await armMetric('thumbs_up') };
    expect(await userMetric(c.userId, 'thumbs_up')).toEqual({ count: 1, total: 0 });

    const eventId = randomUUID();
    await rate(c, first, { thumb: 'up', stars: null }, eventId);
    await rate(c, first, { thumb: 'up', stars: null }, eventId); // redelivered
    await rate(c, first, { thumb: 'up', stars: null }); // the same answer again
    await waitFor(async () => (await implicit(first.turnId)) === 1, {
      what: 'the late thumbs-up in the reward',
    });
    const announced = await findOnTopic(
      testKafka('feedback-it'),
      TOPICS.rewardTurnLabelled,
      (m) => String(m.key) === c.id && JSON.parse(String(m.value)).payload.turnId === first.turnId,
      2,
    );
    const composites = announced.map((m) => JSON.parse(String(m.value)).payload.composite.value);
    expect(composites[1]).toBeGreaterThan(composites[0]);

    expect(await userMetric(c.userId, 'thumbs_up')).toEqual({ count: 1, total: 1 });
    const after = await armMetric('thumbs_up');
    expect(after).toEqual({ ...before.arm, sum: before.arm!.sum + 1 });
    expect(before.implicit).not.toBe(1);

    // Taken back: the turn returns to where it was, once.
    await rate(c, first, { thumb: null, stars: null });
    await waitFor(async () => (await implicit(first.turnId)) === before.implicit, {
      what: 'the thumb taken back',
    });
    expect(await userMetric(c.userId, 'thumbs_up')).toEqual({ count: 1, total: 0 });
    expect(await armMetric('thumbs_up')).toEqual(before.arm);
  });

  it('feedback consumed before its turn is held, then counted when the turn arrives', async () => {
    const c = await f.conversation();
    const first = {
      ...(await c.turn('I got the job!', 'That is wonderful news!')),
      experimentId,
      armId: 'a',
    };
    const second = await c.turn('thanks, still shaking', 'Take a breath and enjoy it.');
    await rate(c, first, { thumb: null, stars: 5 });
    await waitFor(
      async () =>
        (
          (await f.db.query(`SELECT signals FROM pending_signals WHERE turn_id = $1`, [
            first.turnId,
          ])) as unknown[]
        ).length === 1,
      { what: 'the rating held for a turn not seen yet' },
    );
    await c.publish(first, second);
    await waitFinished(f, first.turnId);
    expect(await signals(first.turnId)).toMatchObject({ stars: 5 });
    const details = (await f.labels(first.turnId)).find((l) => l.component === 'implicit')?.details;
    expect(details).toMatchObject({ stars: 5 });
    expect(await f.db.query(`SELECT 1 FROM pending_signals WHERE turn_id = $1`, [first.turnId])).toEqual([]);
    // Counted once in the experiment, as liked (five stars).
    expect(await userMetric(c.userId, 'thumbs_up')).toEqual({ count: 1, total: 1 });
  });

  it('reads v1 events written before the change as v1 meant them (-1 and 1 thumbs, 2-5 stars)', async () => {
    const c = await f.conversation();
    const turn = await c.turn('long day', 'Want to tell me about it?');
    await c.publish(turn);
    await waitFor(async () => (await signals(turn.turnId)) !== undefined, { what: 'the turn recorded' });
    const v1 = (rating: number) =>
      f.publisher.publish(
        chatFeedbackV1,
        createEvent(
          chatFeedbackV1,
          {
            kind: 'rating',
            conversationId: c.id,
            userId: c.userId,
            turnId: turn.turnId,
            checkpointId: 'base',
            rating,
            comment: null,
            tags: [],
          },
          'test',
        ),
        c.id,
      );
    await v1(-1);
    await waitFor(async () => (await signals(turn.turnId)).thumbs === -1, { what: 'a v1 thumbs-down' });
    await v1(4);
    await waitFor(async () => (await signals(turn.turnId)).stars === 4, { what: 'v1 stars' });
  });

  it('carrying on after a regenerate keeps the reply the user answered, without an explicit pick', async () => {
    const c = await f.conversation();
    const first = await c.turn('I lost my keys', 'Keys are overrated.');
    const second = await c.turn('', 'That sounds stressful. Where did you last have them?', {
      sameUserMessageAs: first,
    });
    const next = await c.turn('thanks, in the car I think', 'Then check under the seats.');
    await c.publish(first, second);
    await waitFor(async () => (await signals(first.turnId))?.regenerated === true, {
      what: 'the regenerate',
    });
    await c.publish(next);
    await waitFinished(f, second.turnId);
    await waitFinished(f, first.turnId);
    expect(await signals(second.turnId)).toMatchObject({ kept: true });
    expect(await signals(first.turnId)).toMatchObject({ kept: false, regenerated: true });

    // And the implicit keep is a preference pair, as an explicit swipe is.
    const out = await mkdtemp(path.join(tmpdir(), 'echoloop-pairs-'));
    try {
      const { dir } = await exportDataset({
        db: f.db,
        kind: 'preferences',
        format: 'jsonl',
        filters: {},
        outDir: out,
        privacy: { pseudonymKey: 'test-pseudonym-key-0123456789abcdef' },
        consentDefault: true,
      });
      const pairs = (await readFile(path.join(dir, 'preferences.jsonl'), 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { chosenTurnId: string; rejectedTurnId: string; source: string });
      expect(pairs).toContainEqual(
        expect.objectContaining({
          chosenTurnId: second.turnId,
          rejectedTurnId: first.turnId,
          source: 'swipe',
        }),
      );
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('a swipe that lands while the next message is judged stands over the implicit keep', async () => {
    const c = await f.conversation();
    const first = await c.turn('my plant died', 'Plants are replaceable.');
    const second = await c.turn('', 'Oh no, had you had it long?', { sameUserMessageAs: first });
    const next = await c.turn('thanks, three years', 'That is a long time to care for something.');
    await c.publish(first, second);
    await waitFor(async () => (await signals(first.turnId))?.regenerated === true, {
      what: 'the regenerate',
    });
    // The live emotion judge answers the next message slowly; the user swipes back to the first reply meanwhile.
    const aboutNext = (text: string) => text.includes(JUDGE_SYSTEM.emotion) && text.includes('three years');
    f.judge.setFaults((request) =>
      aboutNext(JSON.stringify(request.messages)) ? { delayBeforeFirstTokenMs: 3_000 } : undefined,
    );
    try {
      await c.publish(next);
      await waitFor(() => f.judge.requests.some((r) => aboutNext(JSON.stringify(r.body))), {
        what: 'the live emotion judged',
      });
      await f.publisher.publish(
        chatFeedbackV2,
        createEvent(
          chatFeedbackV2,
          {
            kind: 'swipe',
            conversationId: c.id,
            userId: c.userId,
            parentId: first.userMessage.id,
            selectedTurnId: first.turnId,
            rejectedTurnIds: [second.turnId],
          },
          'test',
        ),
        c.id,
      );
      await waitFor(async () => (await signals(first.turnId))?.kept === true, { what: 'the swipe' });
    } finally {
      f.judge.setFaults(undefined);
    }
    await waitFinished(f, first.turnId);
    await waitFinished(f, second.turnId);

    expect(await signals(first.turnId)).toMatchObject({ kept: true, regenerated: true });
    expect(await signals(second.turnId)).toMatchObject({ kept: false });
    const emotion = async (turnId: string) =>
      (await f.labels(turnId)).find((l) => l.component === 'live_emotion')?.status;
    expect(await emotion(first.turnId)).toBe('labelled');
    expect(await emotion(second.turnId)).toBe('skipped');
  });

  it('coming back credits the end of the previous conversation, once, late, through a redelivery', async () => {
    const before = await f.conversation();
    const answered = await before.turn('I finally told my sister', 'How did she take it?');
    const last = await before.turn('she hugged me', 'That must have felt like a weight lifting.');
    await before.publish(answered, last);
    // Both finished first: the one answered, the last one left (no next message within LEAVE_AFTER_MS).
    await waitFinished(f, answered.turnId);
    await waitFinished(f, last.turnId);
    const [answeredBefore, lastBefore] = [await implicit(answered.turnId), await implicit(last.turnId)];

    const back = await f.conversation(before.userId);
    const hello = await back.turn('hi, I am back', 'Welcome back! How are things with your sister?');
    const event = createEvent(chatTurnCompletedV1, hello, 'test');
    await f.publisher.publish(chatTurnCompletedV1, event, back.id);
    await f.publisher.publish(chatTurnCompletedV1, event, back.id); // redelivered

    // The implicit reward of each credited turn moves by the return's term (0.4, the mean of its terms).
    await waitFor(async () => (await implicit(last.turnId)) !== lastBefore, { what: 'the return credited' });
    expect(await signals(last.turnId)).toMatchObject({ returned: true });
    expect(await signals(answered.turnId)).toMatchObject({ returned: true });
    expect(await implicit(last.turnId)).toBeCloseTo(((lastBefore ?? NaN) + 0.4) / 2, 10);
    await waitFor(async () => (await implicit(answered.turnId)) !== answeredBefore, {
      what: 'the earlier turn credited',
    });
    const announced = await findOnTopic(
      testKafka('return-it'),
      TOPICS.rewardTurnLabelled,
      (m) => String(m.key) === before.id && JSON.parse(String(m.value)).payload.turnId === last.turnId,
      2,
    );
    // Once: finished, then revised by the return; the redelivery and the new conversation's own turns change nothing.
    const next = await back.turn('things are good', 'I am glad.');
    await back.publish(next);
    await waitFinished(f, hello.turnId);
    const again = await findOnTopic(
      testKafka('return-it-2'),
      TOPICS.rewardTurnLabelled,
      (m) => JSON.parse(String(m.value)).payload.turnId === hello.turnId,
    );
    expect(again).toHaveLength(1);
    const revisions = await findOnTopic(
      testKafka('return-it-3'),
      TOPICS.rewardTurnLabelled,
      (m) => JSON.parse(String(m.value)).payload.turnId === last.turnId,
      2,
    );
    expect(revisions).toHaveLength(announced.length);
    expect(revisions).toHaveLength(2);
    expect(await implicit(hello.turnId)).not.toBeNull();
    expect((await signals(hello.turnId)).returned).toBeUndefined();
  });
});
