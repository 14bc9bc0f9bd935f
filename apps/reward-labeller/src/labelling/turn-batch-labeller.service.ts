import type { TurnLabel } from './labels.repository';
import type { RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import { ComponentJudges } from './component-judges';
import { type FinishPlan, type FinishStep, LabelBatchStore } from './label-batch-store';
import type { LabelDraft } from './label-draft';
import { judgedReply, liveEmotionDraft, replyDrafts } from './label-rules';
import type { TurnPayload } from './turn-payload';
import { implicitSignals } from './signals';
import { TurnLabeller } from './turn-labeller.service';

/**
 * Labels a Kafka batch of completed turns with a few statements per step instead of a few per turn: the turns
 * recorded together, their replies judged side by side and stored together, then, conversation by conversation
 * in order (the live emotion score carries from one turn to the next), the turns each new user message answers
 * finished in one transaction. Does what TurnLabeller did per turn, and like it only what is still missing, so a
 * redelivered batch changes nothing.
 */
@Injectable()
export class TurnBatchLabeller {
  private readonly labels: Counter<'component' | 'status'>;

  constructor(
    private readonly labeller: TurnLabeller,
    private readonly store: LabelBatchStore,
    private readonly judges: ComponentJudges,
    metrics: MetricsService,
  ) {
    this.labels = metrics.counter('labeller_labels_total', 'Labels stored, by component and status', [
      'component',
      'status',
    ]);
  }

  async onTurns(batch: readonly TurnPayload[]): Promise<void> {
    const turns = [...new Map(batch.map((t) => [t.turnId, t])).values()];
    const stored = await this.store.recordTurns(turns);
    const recorded = turns.filter((t) => stored.has(t.turnId));
    if (recorded.length === 0) return;
    await this.store.markRegenerated(newestPerUserMessage(recorded));
    // The judges of the new replies and the live emotion of the turns they answer, side by side; the replies'
    // labels are stored first, since finishing a turn of this batch reads them.
    const [replies, plan] = await Promise.all([this.judgeReplies(recorded), this.planFinishes(recorded)]);
    const { version, config } = this.labeller;
    this.count(await this.store.saveLabels(replies, version));
    this.count(await this.store.finish(plan, version, config));
  }

  /** Empathy and humanlike for each reply, unless stored or not sampled. */
  private async judgeReplies(turns: readonly TurnPayload[]): Promise<TurnLabel[]> {
    const { version, config } = this.labeller;
    const stored = await this.store.storedComponents(
      turns.map((t) => t.turnId),
      version,
    );
    const judged = await Promise.all(
      turns.map(async (turn) => {
        const has = stored.get(turn.turnId) ?? new Set<string>();
        const drafts = await replyDrafts(this.judges, turn.turnId, judgedReply(turn), has, config);
        return drafts.map((draft) => ({ turnId: turn.turnId, draft }));
      }),
    );
    return judged.flat();
  }

  /** The turns each new user message answers, planned conversation by conversation. */
  private async planFinishes(turns: readonly TurnPayload[]): Promise<FinishPlan> {
    const { version, config } = this.labeller;
    const conversations = groupBy(turns, (t) => t.conversationId);
    const ids = [...conversations.keys()];
    const [unfinished, scores] = await Promise.all([
      this.store.unfinishedIn(ids, version, new Map(turns.map((t) => [t.turnId, t]))),
      this.store.emotionScores(ids, version),
    ]);
    const unfinishedBy = groupBy(unfinished, (t) => t.conversationId);
    const stored = await this.store.storedComponents(
      unfinished.map((t) => t.turnId),
      version,
    );
    // What the plan is based on: feedback that changes it before the plan is stored makes it stale.
    const read = new Map(unfinished.map((t) => [t.turnId, t.signals]));
    const signals = new Map<string, TurnSignals>();
    const steps = await Promise.all(
      [...conversations].map(([id, inOrder]) =>
        this.planConversation(inOrder, {
          unfinished: unfinishedBy.get(id) ?? [],
          stored,
          score: scores.get(id) ?? config.liveEmotion.startScore,
          signals,
        }),
      ),
    );
    return { read, signals, steps: steps.flat() };
  }

  /**
   * TurnLabeller's per-turn rules replayed over one conversation's turns in order: each user message answers the
   * unfinished turns before it (the newest one answered, older alternatives passed over).
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
        const emotion = context.stored.get(previous.turnId)?.has('live_emotion')
          ? null
          : await this.liveEmotion(previous, isAnswered, context.score);
        if (emotion?.scoreAfter != null) context.score = emotion.scoreAfter;
        steps.push({
          turn: previous,
          emotion,
          last: [this.judges.implicit(implicitSignals(previous.signals, previous.repliedAt, false))],
        });
      }
    }
    return steps;
  }

  private async liveEmotion(
    turn: RewardTurnEntity,
    answered: boolean,
    score: number,
  ): Promise<{ draft: LabelDraft; scoreAfter: number | null }> {
    const next = turn.signals.nextUserMessage?.content ?? '';
    const payload = turn.turn as unknown as TurnPayload;
    const { draft, scoreAfter } = await liveEmotionDraft(
      this.judges,
      turn.turnId,
      payload,
      next,
      answered,
      () => score,
      this.labeller.config,
    );
    return { draft, scoreAfter };
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

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Of each user message's turns in the batch, the last to arrive: every other alternative was regenerated. */
export function newestPerUserMessage(
  turns: readonly TurnPayload[],
): { userMessageId: string; turnId: string }[] {
  const newest = new Map<string, string>();
  for (const t of turns) newest.set(t.userMessage.id, t.turnId);
  return [...newest].map(([userMessageId, turnId]) => ({ userMessageId, turnId }));
}

/**
 * The reply a user message answers, of the unfinished turns before it (newest first): the alternative the user
 * picked explicitly (a swipe back to an older one), else the newest.
 */
function answeredOf(waiting: readonly RewardTurnEntity[]): RewardTurnEntity | undefined {
  const newest = waiting[0];
  const picked = waiting.find((t) => t.userMessageId === newest?.userMessageId && t.signals.kept === true);
  return picked ?? newest;
}

/**
 * Carrying on from a reply keeps it: when the answered reply had alternatives and the user picked none of them
 * explicitly, it is kept and the others are not (what preference pairs are built from).
 */
function keepAnswered(
  answered: RewardTurnEntity | undefined,
  waiting: readonly RewardTurnEntity[],
  patch: (turn: RewardTurnEntity, change: TurnSignals) => void,
): void {
  if (!answered) return;
  const alternatives = waiting.filter((t) => t.userMessageId === answered.userMessageId);
  if (alternatives.length < 2 || alternatives.some((t) => t.signals.kept !== undefined)) return;
  for (const turn of alternatives) patch(turn, { kept: turn.turnId === answered.turnId });
}
