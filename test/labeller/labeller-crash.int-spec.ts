import { TOPICS } from '@echoloop/contracts';
import { findOnTopic, testKafka, waitFor } from '@echoloop/testing';
import { type LabellerFixture, startLabellerFixture, type TurnPayload } from './labeller-fixture';

const CONVERSATIONS = 8;
const TURNS_EACH = 3;

describe('reward labeller killed mid-batch', () => {
  let f: LabellerFixture;

  beforeAll(async () => {
    f = await startLabellerFixture({ JUDGE_TIMEOUT_MS: '5000', JUDGE_CONCURRENCY: '2' });
    // Slow judges, so the kill lands while turns are being labelled.
    f.judge.setFaults({ delayBeforeFirstTokenMs: 40 });
  });
  afterAll(async () => {
    await f?.close();
  });

  it('after SIGKILL and a restart every turn is labelled exactly once: none missing, none duplicated', async () => {
    const turns: TurnPayload[] = [];
    const conversationIds: string[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const c = await f.conversation();
      conversationIds.push(c.id);
      for (let t = 0; t < TURNS_EACH; t++)
        turns.push(await c.turn(`message ${t} of chat ${i}`, `reply ${t} to chat ${i}`));
      await c.publish(...turns.slice(-TURNS_EACH));
    }
    const ids = turns.map((t) => t.turnId);
    const labelled = async () =>
      (
        (await f.db.query(
          'SELECT count(DISTINCT turn_id)::int AS n FROM reward_labels WHERE turn_id = ANY($1)',
          [ids],
        )) as [{ n: number }]
      )[0].n;
    // Killed while the judges are at work: a batch's labels are written together once its judges answer, so
    // waiting for labels to appear could wait past the whole backlog.
    const judgeCalls = f.judge.requests.length;
    await waitFor(async () => f.judge.requests.length >= judgeCalls + 4, {
      timeoutMs: 60_000,
      what: 'the judges at work',
    });
    const before = await labelled();
    expect(before).toBeLessThan(turns.length);
    await f.labeller.kill();
    await f.restart();

    await waitFor(
      async () => {
        const [{ n }] = (await f.db.query(
          `SELECT count(*)::int AS n FROM reward_turns WHERE turn_id = ANY($1) AND 'labeller-v1' = ANY(labelled_versions)`,
          [ids],
        )) as [{ n: number }];
        return n === turns.length;
      },
      { timeoutMs: 120_000, what: 'every turn finished after the restart' },
    );
    const perComponent = (await f.db.query(
      `SELECT turn_id, component, count(*)::int AS n FROM reward_labels WHERE turn_id = ANY($1)
       GROUP BY turn_id, component`,
      [ids],
    )) as { n: number }[];
    expect(perComponent).toHaveLength(turns.length * 4);
    expect(perComponent.every((row) => row.n === 1)).toBe(true);

    // Kafka delivery is at least once: a relay killed between sending and marking may send an event again,
    // but always the same event (same eventId), so consumers see one announcement per turn.
    const keys = new Set(conversationIds);
    const events = await findOnTopic(
      testKafka('labeller-crash'),
      TOPICS.rewardTurnLabelled,
      (m) => keys.has(String(m.key)),
      turns.length,
      60_000,
    );
    const eventIdsByTurn = new Map<string, Set<string>>();
    for (const m of events) {
      const event = JSON.parse(String(m.value));
      const set = eventIdsByTurn.get(event.payload.turnId) ?? new Set<string>();
      set.add(event.eventId);
      eventIdsByTurn.set(event.payload.turnId, set);
    }
    expect([...eventIdsByTurn.keys()].sort()).toEqual([...ids].sort());
    expect([...eventIdsByTurn.values()].every((set) => set.size === 1)).toBe(true);
  }, 240_000);
});
