import type { RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { DEFAULT_REWARD_CONFIG, parseRewardConfig, type RewardConfig } from '@echoloop/rewards';
import { Inject, Injectable } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import type { Counter } from 'prom-client';
import type { LabellerEnv } from '../env';
import { LABELLER_ENV } from '../tokens';
import { ComponentJudges } from './component-judges';
import { FeedbackStore } from './feedback-store';
import {
  answeredOf,
  type FinishPlan,
  type FinishStep,
  groupBy,
  keepAnswered,
  newestPerUserMessage,
} from './finish-plan';
import { answeredStep, judgedReply, leftStep, replyDrafts } from './label-rules';
import { LabelStore } from './label-store';
import type { TurnLabel } from './labels.repository';
import type { TurnPayload } from './turn-payload';
import { referenceFor, referenceNote, sameReference } from './references';
import { implicitSignals } from './signals';

/**
 * Turns completed turns into reward labels, one path for any number of turns: a Kafka batch of arriving turns, a
 * leave sweep's round, one backfilled turn. Empathy and humanlike are judged when a turn arrives; the live emotion
 * when the user's next message arrives (or, after LEAVE_AFTER_MS of silence, the leaving is recorded); then the
 * implicit signals and the composite, and the turn is finished and announced. Each plan is finished with a few
 * statements whatever its size (LabelStore.finish). Every step first looks at what is stored, so a redelivered
 * batch or a replay only does what is still missing.
 */
@Injectable()
export class TurnLabeller {
  readonly version: string;
  readonly config: RewardConfig;
  private readonly returns: { minGapMs: number; windowMs: number; turns: number };
  private readonly labels: Counter<'component' | 'status'>;
  /** The reference judgement running for each turn, so two of one turn never overlap. */
  private readonly referenceRuns = new Map<string, Promise<void>>();

  constructor(
    @Inject(LABELLER_ENV) env: LabellerEnv,
    private readonly store: LabelStore,
    private readonly feedback: FeedbackStore,
    private readonly judges: ComponentJudges,
    metrics: MetricsService,
  ) {
    this.version = env.LABELLER_VERSION;
    this.returns = {
      minGapMs: env.RETURN_MIN_GAP_MS,
      windowMs: env.RETURN_WINDOW_MS,
      turns: env.RETURN_CREDIT_TURNS,
    };
    this.config = env.REWARD_CONFIG
      ? parseRewardConfig(JSON.parse(env.REWARD_CONFIG))
      : DEFAULT_REWARD_CONFIG;
    this.labels = metrics.counter('labeller_labels_total', 'Labels stored, by component and status', [
      'component',
      'status',
    ]);
  }

  /**
   * Arriving turns: recorded together, their replies judged side by side and stored together, then, conversation
   * by conversation in order (the live emotion score carries from one turn to the next), the turns each new user
   * message answers finished in one transaction.
   */
  async onTurns(batch: readonly TurnPayload[]): Promise<void> {
    const turns = [...new Map(batch.map((t) => [t.turnId, t])).values()];
    const stored = await this.store.recordTurns(turns);
    const recorded = turns.filter((t) => stored.has(t.turnId));
    if (recorded.length === 0) return;
    await this.store.markRegenerated(newestPerUserMessage(recorded));
    await this.creditReturns(recorded);
    // The judges of the new replies and the live emotion of the turns they answer, side by side; the replies'
    // labels are stored first, since finishing a turn of this batch reads them.
    const [replies, plan] = await Promise.all([this.judgeReplies(recorded), this.planFinishes(recorded)]);
    this.count(await this.store.saveLabels(replies, this.version));
    await this.judgeEarlyReferences(recorded.map((t) => t.turnId));
    this.count(await this.store.finish(plan, this.version, this.config));
  }

  /**
   * Turns whose user never wrote again: their live emotion is the leaving. Turns still being judged wait. Returns
   * how many were finished.
   */
  async onLeft(turns: readonly RewardTurnEntity[]): Promise<number> {
    const stored = await this.store.storedComponents(
      turns.map((t) => t.turnId),
      this.version,
    );
    const judged = turns.filter(
      (t) => stored.get(t.turnId)?.has('empathy') && stored.get(t.turnId)?.has('humanlike'),
    );
    if (judged.length === 0) return 0;
    const scores = await this.scores(judged);
    const steps = await Promise.all(
      judged.map((turn) =>
        leftStep(this.judges, turn, stored.get(turn.turnId) ?? new Set(), () => scores(turn), this.config),
      ),
    );
    await this.finish(steps);
    return judged.length;
  }

  /**
   * Labels a stored turn again under this labeller's version (backfills): the judges, then its live emotion if
   * the user answered it, or its leaving if they never did and `leftBefore` has passed.
   */
  async relabel(turn: RewardTurnEntity, leftBefore: Date): Promise<void> {
    if (turn.labelledVersions.includes(this.version)) return;
    const replies = await this.judgeReplies([turn.turn as unknown as TurnPayload]);
    this.count(await this.store.saveLabels(replies, this.version));
    await this.judgeEarlyReferences([turn.turnId]);
    if (turn.signals.nextUserMessage) {
      // Of several alternatives, the user answered the one not regenerated or swiped away.
      const answered = !turn.signals.regenerated && turn.signals.kept !== false;
      const stored = (await this.store.storedComponents([turn.turnId], this.version)).get(turn.turnId);
      const score = async () => (await this.scores([turn]))(turn);
      await this.finish([
        await answeredStep(this.judges, turn, answered, stored ?? new Set(), score, this.config),
      ]);
    } else if (turn.repliedAt < leftBefore) {
      await this.onLeft([turn]);
    }
  }

  /**
   * A user back in a new conversation within the return window credits the end of their previous one, through the
   * feedback path: merged under the turn's lock, a finished turn revised and announced again, a repeat a no-op.
   */
  private async creditReturns(turns: readonly TurnPayload[]): Promise<void> {
    for (const turnId of await this.store.returnCredits(turns, this.returns))
      await this.onFeedback(turnId, { returned: true });
  }

  /**
   * Feedback on a turn, at any time (see FeedbackStore.applyFeedback); then the empathy of its message's
   * alternatives against the references it may have given.
   */
  async onFeedback(turnId: string, signals: TurnSignals): Promise<void> {
    const outcome = await this.feedback.applyFeedback(turnId, signals, this.version, {
      config: this.config,
      // A finished turn was either answered or left: no next message means the user left.
      implicit: (turn) =>
        this.judges.implicit(implicitSignals(turn.signals, turn.repliedAt, !turn.signals.nextUserMessage)),
    });
    if (outcome !== 'held') await this.judgeAgainstReferences(turnId);
  }

  /**
   * Feedback that came while a reply was being judged (or before it arrived) found no empathy label to judge
   * again: now there is one.
   */
  private async judgeEarlyReferences(turnIds: readonly string[]): Promise<void> {
    for (const turnId of await this.feedback.withReferenceSignals(turnIds))
      await this.judgeAgainstReferences(turnId);
  }

  /**
   * Echo-N1's empathy judge compares a reply with a reference when there is one, and the user gives one only
   * later: an edit, the alternative they kept, one they rated higher (references.ts). Each judged empathy label of
   * the message's alternatives whose reference has changed is judged again and revised through the feedback path;
   * a redelivery finds the reference unchanged and does nothing. A judge that fails leaves the label as it was (the
   * next feedback tries again).
   */
  private judgeAgainstReferences(turnId: string): Promise<void> {
    // The turns and the feedback topics are consumed side by side: a turn's judgements against references run one
    // after another, so the second reads the first's label and finds nothing left to judge.
    const run = (this.referenceRuns.get(turnId) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.judgeAgainstReferencesNow(turnId));
    this.referenceRuns.set(turnId, run);
    const forget = () => {
      if (this.referenceRuns.get(turnId) === run) this.referenceRuns.delete(turnId);
    };
    run.then(forget, forget);
    return run;
  }

  private async judgeAgainstReferencesNow(turnId: string): Promise<void> {
    const alternatives = await this.feedback.alternativesOf(turnId, this.version);
    for (const turn of alternatives) {
      if (turn.empathy?.status !== 'labelled' || turn.empathy.label === 'process_failed') continue;
      const reference = referenceFor(turn, alternatives);
      if (sameReference(referenceOf(turn.empathy), reference)) continue;
      const judged = await this.judges.empathy(
        judgedReply(turn.payload),
        reference?.text ?? null,
        this.config,
      );
      if (judged.status !== 'labelled') continue;
      const draft = { ...judged, details: { ...judged.details, reference: referenceNote(reference) } };
      const seen = referenceOf(turn.empathy);
      const replaced = await this.feedback.replaceLabel(
        turn.turnId,
        draft,
        this.version,
        this.config,
        (stored) => isDeepStrictEqual(referenceOf(stored), seen),
      );
      if (replaced) this.count([{ turnId: turn.turnId, draft }]);
    }
  }

  /** Empathy and humanlike for each reply, unless stored or not sampled. */
  private async judgeReplies(turns: readonly TurnPayload[]): Promise<TurnLabel[]> {
    const stored = await this.store.storedComponents(
      turns.map((t) => t.turnId),
      this.version,
    );
    const judged = await Promise.all(
      turns.map(async (turn) => {
        const has = stored.get(turn.turnId) ?? new Set<string>();
        const drafts = await replyDrafts(this.judges, turn.turnId, judgedReply(turn), has, this.config);
        return drafts.map((draft) => ({ turnId: turn.turnId, draft }));
      }),
    );
    return judged.flat();
  }

  /** The turns each new user message answers, planned conversation by conversation. */
  private async planFinishes(turns: readonly TurnPayload[]): Promise<FinishPlan> {
    const conversations = groupBy(turns, (t) => t.conversationId);
    const ids = [...conversations.keys()];
    const [unfinished, scores] = await Promise.all([
      this.store.unfinishedIn(ids, this.version, new Map(turns.map((t) => [t.turnId, t]))),
      this.store.emotionScores(ids, this.version),
    ]);
    const unfinishedBy = groupBy(unfinished, (t) => t.conversationId);
    const stored = await this.store.storedComponents(
      unfinished.map((t) => t.turnId),
      this.version,
    );
    // What the plan is based on: feedback that changes it before the plan is stored makes it stale.
    const read = new Map(unfinished.map((t) => [t.turnId, t.signals]));
    const signals = new Map<string, TurnSignals>();
    const steps = await Promise.all(
      [...conversations].map(([id, inOrder]) =>
        this.planConversation(inOrder, {
          unfinished: unfinishedBy.get(id) ?? [],
          stored,
          score: scores.get(id) ?? this.config.liveEmotion.startScore,
          signals,
        }),
      ),
    );
    return { read, signals, steps: steps.flat() };
  }

  /**
   * One conversation's turns in order: each user message answers the unfinished turns before it (the newest one
   * answered, older alternatives passed over).
   */
  private async planConversation(
    inOrder: readonly TurnPayload[],
    context: {
      unfinished: RewardTurnEntity[];
      stored: Map<string, Set<string>>;
      score: number;
      signals: Map<string, TurnSignals>;
    },
  ): Promise<FinishStep[]> {
    const position = new Map(inOrder.map((t, i) => [t.turnId, i]));
    const finished = new Set<string>();
    const steps: FinishStep[] = [];
    const patch = (turn: RewardTurnEntity, change: TurnSignals) => {
      turn.signals = { ...turn.signals, ...change };
      context.signals.set(turn.turnId, { ...context.signals.get(turn.turnId), ...change });
    };
    for (const [i, turn] of inOrder.entries()) {
      const before = Date.parse(turn.userMessage.createdAt);
      // Newest first; a turn later in the batch has not arrived yet when this one is handled.
      const waiting = context.unfinished.filter(
        (t) =>
          !finished.has(t.turnId) &&
          (position.get(t.turnId) ?? -1) <= i &&
          t.userMessageId !== turn.userMessage.id &&
          t.repliedAt.getTime() < before,
      );
      const answered = answeredOf(waiting);
      keepAnswered(answered, waiting, patch);
      const message = {
        id: turn.userMessage.id,
        content: turn.userMessage.content,
        createdAt: turn.userMessage.createdAt,
      };
      for (const previous of waiting) {
        // A next message noted before (then a crash) stands: this one may answer a later turn.
        if (!previous.signals.nextUserMessage) patch(previous, { nextUserMessage: message });
        const isAnswered = previous.turnId === answered?.turnId && previous.signals.kept !== false;
        finished.add(previous.turnId);
        const stored = context.stored.get(previous.turnId) ?? new Set<string>();
        const step = await answeredStep(
          this.judges,
          previous,
          isAnswered,
          stored,
          () => context.score,
          this.config,
        );
        if (step.emotion?.scoreAfter != null) context.score = step.emotion.scoreAfter;
        steps.push(step);
      }
    }
    return steps;
  }

  /** Finishes turns read from the store (their signals as read, nothing to merge). */
  private async finish(steps: FinishStep[]): Promise<void> {
    const read = new Map(steps.map((s) => [s.turn.turnId, s.turn.signals]));
    this.count(await this.store.finish({ read, signals: new Map(), steps }, this.version, this.config));
  }

  /** The turns' conversations' live emotion scores for this version (the start score where none is stored). */
  private async scores(turns: readonly RewardTurnEntity[]): Promise<(turn: RewardTurnEntity) => number> {
    const scores = await this.store.emotionScores(
      [...new Set(turns.map((t) => t.conversationId))],
      this.version,
    );
    return (turn) => scores.get(turn.conversationId) ?? this.config.liveEmotion.startScore;
  }

  /** One increment per component and status, not per label. */
  private count(inserted: readonly TurnLabel[]): void {
    const counts = new Map<string, { component: string; status: string; labels: number }>();
    for (const { draft } of inserted) {
      const key = `${draft.component} ${draft.status}`;
      const entry = counts.get(key) ?? { component: draft.component, status: draft.status, labels: 0 };
      entry.labels += 1;
      counts.set(key, entry);
    }
    for (const { component, status, labels } of counts.values())
      this.labels.inc({ component, status }, labels);
  }
}

/** The reference a stored label was judged against (its note), null when judged without one. */
const referenceOf = (label: { details: Record<string, unknown> | null } | null): unknown =>
  label?.details?.['reference'] ?? null;
