import type { TurnLabel } from './labels.repository';
import type { RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { DEFAULT_REWARD_CONFIG } from '@echoloop/rewards';
import { Test } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { type JudgeCall, JudgeRunner } from '../judges/judge-runner';
import { ComponentJudges } from './component-judges';
import { type AlternativeWithEmpathy, FeedbackStore } from './feedback-store';
import type { LabelDraft } from './label-draft';
import { type FinishPlan, StalePlanError } from './finish-plan';
import { LabelStore } from './label-store';
import type { TurnPayload } from './turn-payload';
import { TurnLabeller } from './turn-labeller.service';
import { LABELLER_ENV } from '../tokens';

const VERSION = 'labeller-v1';
const VERDICTS: Record<string, string> = {
  empathy: 'Warm.\nVerdict: 4',
  humanlike: 'Natural.\nVerdict: humanlike',
  live_emotion: 'Relieved.\nChange: +2',
};

/** LabelStore in memory, with its guarantees: a label once per (turn, component), a turn finished once. */
class MemoryLabelStore {
  readonly turns = new Map<string, RewardTurnEntity>();
  readonly labels = new Map<string, TurnLabel>();
  readonly scores = new Map<string, number>();
  readonly announced: string[] = [];

  async recordTurns(turns: readonly TurnPayload[]): Promise<Set<string>> {
    for (const t of turns)
      if (!this.turns.has(t.turnId))
        this.turns.set(t.turnId, {
          turnId: t.turnId,
          conversationId: t.conversationId,
          userId: t.userId,
          userMessageId: t.userMessage.id,
          checkpointId: t.checkpointId,
          experimentId: null,
          armId: null,
          turn: t as unknown as Record<string, unknown>,
          repliedAt: new Date(t.assistantMessage.createdAt),
          signals: {},
          labelledVersions: [],
          createdAt: new Date(),
        });
    return new Set(turns.map((t) => t.turnId));
  }

  async markRegenerated(newest: { userMessageId: string; turnId: string }[]): Promise<void> {
    for (const n of newest)
      for (const t of this.turns.values())
        if (t.userMessageId === n.userMessageId && t.turnId !== n.turnId)
          t.signals = { ...t.signals, regenerated: true };
  }

  async storedComponents(turnIds: readonly string[]): Promise<Map<string, Set<string>>> {
    const stored = new Map<string, Set<string>>();
    for (const { turnId, draft } of this.labels.values())
      if (turnIds.includes(turnId))
        stored.set(turnId, (stored.get(turnId) ?? new Set()).add(draft.component));
    return stored;
  }

  async saveLabels(labels: readonly TurnLabel[]): Promise<TurnLabel[]> {
    return labels.filter((l) => {
      const key = `${l.turnId} ${l.draft.component}`;
      if (this.labels.has(key)) return false;
      this.labels.set(key, l);
      return true;
    });
  }

  async unfinishedIn(conversationIds: readonly string[]): Promise<RewardTurnEntity[]> {
    return [...this.turns.values()]
      .filter((t) => conversationIds.includes(t.conversationId) && !t.labelledVersions.includes(VERSION))
      .sort((a, b) => b.repliedAt.getTime() - a.repliedAt.getTime())
      .map((t) => ({ ...t }));
  }

  /** The turns a return credits: set by a test (the rule itself is SQL, tested on PostgreSQL). */
  credits: string[] = [];
  async returnCredits(): Promise<string[]> {
    return this.credits;
  }

  async emotionScores(conversationIds: readonly string[]): Promise<Map<string, number>> {
    return new Map([...this.scores].filter(([id]) => conversationIds.includes(id)));
  }

  async finish(plan: FinishPlan): Promise<TurnLabel[]> {
    const changed = [...plan.read].filter(
      ([id, read]) => !isDeepStrictEqual(this.turns.get(id)?.signals, read),
    );
    if (changed.length > 0) throw new StalePlanError(changed.length);
    for (const [id, patch] of plan.signals) {
      const turn = this.turns.get(id);
      if (turn) turn.signals = { ...turn.signals, ...patch };
    }
    const inserted: TurnLabel[] = [];
    for (const { turn, emotion, last } of plan.steps) {
      if (emotion) {
        const saved = await this.saveLabels([{ turnId: turn.turnId, draft: emotion.draft }]);
        if (saved.length > 0 && emotion.scoreAfter !== null)
          this.scores.set(turn.conversationId, emotion.scoreAfter);
        inserted.push(...saved);
      }
      const stored = this.turns.get(turn.turnId);
      if (!stored || stored.labelledVersions.includes(VERSION)) continue;
      stored.labelledVersions = [...stored.labelledVersions, VERSION];
      inserted.push(...(await this.saveLabels(last.map((draft) => ({ turnId: turn.turnId, draft })))));
      this.announced.push(turn.turnId);
    }
    return inserted;
  }
}

/** FeedbackStore in memory over the label store's turns: signals merged, a label replaced only while current. */
class MemoryFeedbackStore {
  readonly replaced: string[] = [];
  constructor(private readonly store: MemoryLabelStore) {}

  applyFeedback = jest.fn(async (turnId: string, signals: TurnSignals) => {
    const turn = this.store.turns.get(turnId);
    if (!turn) return 'held' as const;
    turn.signals = { ...turn.signals, ...signals };
    return 'stored' as const;
  });

  async withReferenceSignals(turnIds: readonly string[]): Promise<string[]> {
    return turnIds.filter((id) => {
      const signals = this.store.turns.get(id)?.signals ?? {};
      return !!signals.edit || signals.kept === false || signals.stars != null || signals.thumbs != null;
    });
  }

  async alternativesOf(turnId: string): Promise<AlternativeWithEmpathy[]> {
    const of = this.store.turns.get(turnId)?.userMessageId;
    return [...this.store.turns.values()]
      .filter((t) => t.userMessageId === of)
      .map((t) => {
        const empathy = this.store.labels.get(`${t.turnId} empathy`)?.draft;
        const payload = t.turn as unknown as TurnPayload;
        return {
          turnId: t.turnId,
          signals: { ...t.signals },
          payload,
          reply: payload.assistantMessage.content,
          empathy: empathy
            ? { status: empathy.status, label: empathy.label, details: empathy.details }
            : null,
        };
      });
  }

  async replaceLabel(
    turnId: string,
    draft: LabelDraft,
    _version: string,
    _config: unknown,
    stillCurrent: (stored: { details: Record<string, unknown> | null } | null) => boolean,
  ): Promise<boolean> {
    const key = `${turnId} ${draft.component}`;
    if (!stillCurrent(this.store.labels.get(key)?.draft ?? null)) return false;
    this.store.labels.set(key, { turnId, draft });
    this.replaced.push(turnId);
    return true;
  }
}

function conversation() {
  const conversationId = randomUUID();
  const userId = randomUUID();
  let at = Date.parse('2026-11-24T10:00:00Z');
  return (content: string, userMessageId: string = randomUUID()): TurnPayload => {
    at += 10_000;
    return {
      turnId: randomUUID(),
      conversationId,
      userId,
      characterId: randomUUID(),
      checkpointId: 'base',
      experimentId: null,
      armId: null,
      userMessage: { id: userMessageId, content, createdAt: new Date(at).toISOString() },
      assistantMessage: {
        id: randomUUID(),
        content: `a reply to ${content}`,
        createdAt: new Date(at + 1_000).toISOString(),
        reasoning: null,
        finishReason: 'stop',
        usage: { promptTokens: 10, completionTokens: 5 },
      },
      history: [],
      personaSnapshot: {},
      timings: { ttftMs: 50, totalMs: 200 },
      safety: { flagged: false, categories: [] },
    } as unknown as TurnPayload;
  };
}

/** `onJudge` may throw, or answer 'fail' for a judge that gave no readable answer (JudgeRunner's failed outcome). */
async function setUp(onJudge: (component: string) => 'fail' | undefined = () => undefined) {
  const store = new MemoryLabelStore();
  const judgeCalls: string[] = [];
  const counted: { labels: Record<string, string>; by: number }[] = [];
  const feedback = new MemoryFeedbackStore(store);
  const references: (string | null)[] = [];
  const runner = {
    model: 'judge',
    judge: async <T>(call: JudgeCall<T>) => {
      judgeCalls.push(call.component);
      const comparative = JSON.stringify(call.messages()).includes('reference_reply');
      references.push(comparative ? JSON.stringify(call.messages()) : null);
      // A judge takes a while: long enough for another consumer's work on the same turn to start meanwhile.
      if (comparative) await new Promise((resolve) => setTimeout(resolve, 5));
      if (onJudge(call.component) === 'fail')
        return { ok: false as const, error: 'judge down', raw: null, model: 'judge' };
      const raw = comparative
        ? 'Less attuned than the reference.\nVerdict: worse'
        : (VERDICTS[call.component] ?? '');
      const parsed = call.parse(raw);
      if (!parsed.ok) throw new Error(`bad test verdict for ${call.component}`);
      return { ok: true as const, value: parsed.value, raw, model: 'judge' };
    },
  };
  const module = await Test.createTestingModule({
    providers: [
      TurnLabeller,
      ComponentJudges,
      { provide: JudgeRunner, useValue: runner },
      { provide: LabelStore, useValue: store },
      { provide: FeedbackStore, useValue: feedback },
      { provide: LABELLER_ENV, useValue: { LABELLER_VERSION: VERSION, RETURN_CREDIT_TURNS: 3 } },
      {
        provide: MetricsService,
        useValue: {
          counter: () => ({
            inc: (labels: Record<string, string>, by = 1) => counted.push({ labels, by }),
          }),
        },
      },
    ],
  }).compile();
  return { labeller: module.get(TurnLabeller), store, judgeCalls, counted, feedback, references };
}

const components = (store: MemoryLabelStore, turnId: string) =>
  [...store.labels.values()]
    .filter((l) => l.turnId === turnId)
    .map((l) => l.draft.component)
    .sort();

describe('TurnLabeller', () => {
  it('a batch with a duplicate judges and labels that turn once', async () => {
    const { labeller, store, judgeCalls } = await setUp();
    const say = conversation();
    const first = say('hello');
    const second = say('how are you?');

    await labeller.onTurns([first, first, second]);

    expect(judgeCalls.filter((c) => c === 'empathy')).toHaveLength(2);
    expect(judgeCalls.filter((c) => c === 'humanlike')).toHaveLength(2);
    expect(components(store, first.turnId)).toEqual(['empathy', 'humanlike', 'implicit', 'live_emotion']);
    expect(components(store, second.turnId)).toEqual(['empathy', 'humanlike']);
    expect(store.announced).toEqual([first.turnId]);
  });

  it('finishes each turn its next message answers, in order, the emotion score carried from turn to turn', async () => {
    const { labeller, store } = await setUp();
    const say = conversation();
    const turns = [say('one'), say('two'), say('three')];

    await labeller.onTurns(turns);

    expect(store.announced).toEqual([turns[0]?.turnId, turns[1]?.turnId]);
    const emotion = (turn?: TurnPayload) => store.labels.get(`${turn?.turnId} live_emotion`)?.draft.details;
    expect(emotion(turns[1])?.['scoreBefore']).toBe(emotion(turns[0])?.['scoreAfter']);
    expect(store.scores.values().next().value).toBe(emotion(turns[1])?.['scoreAfter']);
    expect(store.turns.get(turns[0]!.turnId)?.signals.nextUserMessage?.content).toBe('two');
  });

  it('a redelivered batch judges nothing again and writes nothing twice', async () => {
    const { labeller, store, judgeCalls } = await setUp();
    const say = conversation();
    const batch = [say('one'), say('two'), say('three')];
    await labeller.onTurns(batch);
    const labels = store.labels.size;
    const calls = judgeCalls.length;
    const saveLabels = jest.spyOn(store, 'saveLabels');

    await labeller.onTurns(batch);

    expect(judgeCalls).toHaveLength(calls);
    expect(store.labels.size).toBe(labels);
    expect(store.announced).toHaveLength(2);
    expect(saveLabels.mock.results.length).toBeGreaterThan(0);
    for (const result of saveLabels.mock.results) await expect(result.value).resolves.toEqual([]);
  });

  it('counts the labels it stored once per component and status, not once per label', async () => {
    const { labeller, counted } = await setUp();
    const say = conversation();

    await labeller.onTurns([say('one'), say('two'), say('three')]);

    expect(counted).toEqual(
      expect.arrayContaining([
        { labels: { component: 'empathy', status: 'labelled' }, by: 3 },
        { labels: { component: 'humanlike', status: 'labelled' }, by: 3 },
        { labels: { component: 'live_emotion', status: 'labelled' }, by: 2 },
        { labels: { component: 'implicit', status: 'labelled' }, by: 2 },
      ]),
    );
    expect(counted).toHaveLength(4);
  });

  it('a regenerated reply is the one answered: the passed-over alternative is finished as not kept', async () => {
    const { labeller, store } = await setUp();
    const say = conversation();
    const question = say('tell me a joke');
    const regenerated = say('tell me a joke', question.userMessage.id);
    const next = say('ha, good one');

    await labeller.onTurns([question, regenerated, next]);

    expect(store.turns.get(question.turnId)?.signals).toMatchObject({ regenerated: true, kept: false });
    expect(store.turns.get(regenerated.turnId)?.signals).toMatchObject({ kept: true });
    expect(store.labels.get(`${question.turnId} live_emotion`)?.draft.status).toBe('skipped');
    expect(store.labels.get(`${regenerated.turnId} live_emotion`)?.draft.status).toBe('labelled');
  });

  it('a swipe back to the older alternative makes it the one answered, and the pick stands', async () => {
    const { labeller, store } = await setUp();
    const say = conversation();
    const question = say('tell me a joke');
    const regenerated = say('tell me a joke', question.userMessage.id);
    await labeller.onTurns([question, regenerated]);
    pick(store, question, regenerated);

    await labeller.onTurns([say('ha, good one')]);

    expect(store.turns.get(question.turnId)?.signals).toMatchObject({ kept: true });
    expect(store.turns.get(regenerated.turnId)?.signals).toMatchObject({ kept: false });
    expect(store.labels.get(`${question.turnId} live_emotion`)?.draft.status).toBe('labelled');
    expect(store.labels.get(`${regenerated.turnId} live_emotion`)?.draft.status).toBe('skipped');
  });

  it('a pick that lands while the next message is judged makes the batch fail, and labelled again it stands', async () => {
    const say = conversation();
    const question = say('tell me a joke');
    const regenerated = say('tell me a joke', question.userMessage.id);
    let pickDuringJudging: MemoryLabelStore | undefined;
    // The swipe arrives after the batch read the turns, while the live emotion judge is answering.
    const { labeller, store } = await setUp((component) => {
      if (component !== 'live_emotion' || !pickDuringJudging) return undefined;
      pick(pickDuringJudging, question, regenerated);
      pickDuringJudging = undefined;
      return undefined;
    });
    await labeller.onTurns([question, regenerated]);
    pickDuringJudging = store;
    const next = say('ha, good one');

    await expect(labeller.onTurns([next])).rejects.toThrow(StalePlanError);
    expect(store.announced).toEqual([]);
    await labeller.onTurns([next]);

    expect(store.turns.get(question.turnId)?.signals).toMatchObject({ kept: true });
    expect(store.turns.get(regenerated.turnId)?.signals).toMatchObject({ kept: false });
    expect(store.labels.get(`${question.turnId} live_emotion`)?.draft.status).toBe('labelled');
    expect(store.announced.sort()).toEqual([question.turnId, regenerated.turnId].sort());
  });

  it("a turn the user left is finished once, the leaving its live emotion from the conversation's score", async () => {
    const { labeller, store } = await setUp();
    const say = conversation();
    const [answered, left] = [say('one'), say('two')];
    await labeller.onTurns([answered, left]);
    const score = store.scores.get(left.conversationId);

    expect(await labeller.onLeft([{ ...store.turns.get(left.turnId)! }])).toBe(1);
    expect(await labeller.onLeft([{ ...store.turns.get(left.turnId)! }])).toBe(1);

    expect(store.announced).toEqual([answered.turnId, left.turnId]);
    const leaving = store.labels.get(`${left.turnId} live_emotion`)?.draft;
    expect(leaving).toMatchObject({ status: 'labelled', label: 'left', details: { scoreBefore: score } });
    expect(store.labels.get(`${left.turnId} implicit`)?.draft.status).toBe('labelled');
    expect(store.scores.get(left.conversationId)).toBe(score);
  });

  it('a turn whose reply is still being judged is not finished as left', async () => {
    const { labeller, store } = await setUp();
    const turn = conversation()('hello');
    await store.recordTurns([turn]);

    expect(await labeller.onLeft([{ ...store.turns.get(turn.turnId)! }])).toBe(0);
    expect(store.announced).toEqual([]);
    expect(store.labels.size).toBe(0);
  });

  it('a backfill labels an answered turn from the start score and one left past the cutoff as left', async () => {
    const { labeller, store } = await setUp();
    const say = conversation();
    const [answered, next, left] = [say('one'), say('two'), say('three')];
    await store.recordTurns([answered, next, left]);
    const stored = store.turns.get(answered.turnId)!;
    stored.signals = { nextUserMessage: { ...next.userMessage } };
    const future = new Date(Date.parse(left.assistantMessage.createdAt) + 1);

    await labeller.relabel({ ...stored }, future);
    await labeller.relabel({ ...store.turns.get(next.turnId)! }, new Date(0));
    await labeller.relabel({ ...store.turns.get(left.turnId)! }, future);

    expect(store.announced).toEqual([answered.turnId, left.turnId]);
    expect(components(store, answered.turnId)).toEqual(['empathy', 'humanlike', 'implicit', 'live_emotion']);
    expect(store.labels.get(`${answered.turnId} live_emotion`)?.draft.details).toMatchObject({
      scoreBefore: DEFAULT_REWARD_CONFIG.liveEmotion.startScore,
    });
    expect(components(store, next.turnId)).toEqual(['empathy', 'humanlike']);
    expect(store.labels.get(`${left.turnId} live_emotion`)?.draft.label).toBe('left');
  });
});

describe('TurnLabeller: empathy against the reference the user gives later', () => {
  const empathyOf = (store: MemoryLabelStore, turnId: string) => store.labels.get(`${turnId} empathy`)?.draft;

  it('judges a reply passed over again against the one kept, once, whatever the redeliveries', async () => {
    const { labeller, store, feedback, references } = await setUp();
    const say = conversation();
    const first = say('I failed my exam');
    const second = say('', first.userMessage.id);
    await labeller.onTurns([first]);
    await labeller.onTurns([second]);
    expect(empathyOf(store, first.turnId)?.details).toMatchObject({ mode: 'absolute' });

    await labeller.onFeedback(second.turnId, { kept: true });
    await labeller.onFeedback(first.turnId, { kept: false });
    expect(feedback.replaced).toEqual([first.turnId]);
    expect(references.at(-1)).toContain(second.assistantMessage.content);
    expect(empathyOf(store, first.turnId)).toMatchObject({
      label: 'worse',
      value: 0,
      details: { mode: 'comparative', reference: { source: 'kept', turnId: second.turnId } },
    });
    // The kept one has no reference: it stays as judged.
    expect(empathyOf(store, second.turnId)?.details).toMatchObject({ mode: 'absolute' });

    const judged = references.length;
    await labeller.onFeedback(first.turnId, { kept: false });
    await labeller.onFeedback(second.turnId, { kept: true });
    expect(references).toHaveLength(judged);
    expect(feedback.replaced).toEqual([first.turnId]);
  });

  it("judges an edited reply against the user's text, and again without when the edit is taken back", async () => {
    const { labeller, store, feedback } = await setUp();
    const turn = conversation()('my dog died');
    await labeller.onTurns([turn]);
    const editedAt = '2026-11-24T10:05:00.000Z';
    await labeller.onFeedback(turn.turnId, {
      edit: { content: 'I am so sorry. Tell me about her?', editedAt },
    });
    expect(empathyOf(store, turn.turnId)?.details).toMatchObject({
      mode: 'comparative',
      reference: { source: 'edit', turnId: turn.turnId },
    });
    await labeller.onFeedback(turn.turnId, { edit: null });
    expect(empathyOf(store, turn.turnId)).toMatchObject({
      label: '4',
      details: { mode: 'absolute', reference: null },
    });
    expect(feedback.replaced).toEqual([turn.turnId, turn.turnId]);
  });

  it('judges against an edit that came before the reply was judged, once its label is stored', async () => {
    const { labeller, store, feedback } = await setUp();
    const turn = conversation()('my cat is sick');
    await store.recordTurns([turn]);
    store.turns.get(turn.turnId)!.signals = { edit: { content: 'Oh no. How is she?', editedAt: 'x' } };
    await labeller.onTurns([turn]);
    expect(store.labels.get(`${turn.turnId} empathy`)?.draft.details).toMatchObject({
      mode: 'comparative',
      reference: { source: 'edit' },
    });
    expect(feedback.replaced).toEqual([turn.turnId]);
  });

  it('judges against an edit once when the turn and the edit are handled at the same moment', async () => {
    const { labeller, store, feedback, references } = await setUp();
    const turn = conversation()('my exam went badly');
    await labeller.onTurns([turn]);
    store.turns.get(turn.turnId)!.signals = {
      edit: { content: 'That hurts. What happened?', editedAt: 'x' },
    };
    // The feedback topic's edit and a redelivered turn (whose labels are stored) race, as two consumers would.
    await Promise.all([
      labeller.onFeedback(turn.turnId, { edit: { content: 'That hurts. What happened?', editedAt: 'x' } }),
      labeller.onTurns([turn]),
    ]);
    expect(references.filter((r) => r?.includes('That hurts'))).toHaveLength(1);
    expect(feedback.replaced).toEqual([turn.turnId]);
  });

  it('leaves the label as it was when the judge cannot answer', async () => {
    let failing = false;
    const { labeller, store, feedback, references } = await setUp((component) =>
      failing && component === 'empathy' ? 'fail' : undefined,
    );
    const turn = conversation()('hello');
    await labeller.onTurns([turn]);
    const before = empathyOf(store, turn.turnId);
    failing = true;
    await labeller.onFeedback(turn.turnId, {
      edit: { content: 'Hi!', editedAt: '2026-11-24T10:05:00.000Z' },
    });
    expect(references.at(-1)).toContain('Hi!');
    expect(empathyOf(store, turn.turnId)).toEqual(before);
    expect(feedback.replaced).toEqual([]);
    // The judge back, the next feedback judges against the edit.
    failing = false;
    await labeller.onFeedback(turn.turnId, { stars: 2 });
    expect(empathyOf(store, turn.turnId)?.details).toMatchObject({ reference: { source: 'edit' } });
  });
});

/** The user swipes back to `kept` over `over`, as the feedback intake stores it. */
function pick(store: MemoryLabelStore, kept: TurnPayload, over: TurnPayload): void {
  for (const [turn, value] of [
    [kept, true],
    [over, false],
  ] as const) {
    const stored = store.turns.get(turn.turnId);
    if (stored) stored.signals = { ...stored.signals, kept: value };
  }
}
