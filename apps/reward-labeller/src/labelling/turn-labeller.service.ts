import type { RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { DEFAULT_REWARD_CONFIG, parseRewardConfig, type RewardConfig } from '@echoloop/rewards';
import { Inject, Injectable } from '@nestjs/common';
import type { Counter } from 'prom-client';
import type { LabellerEnv } from '../env';
import { LABELLER_ENV } from '../tokens';
import { ComponentJudges } from './component-judges';
import type { LabelDraft } from './label-draft';
import { judgedReply, liveEmotionDraft, replyDrafts } from './label-rules';
import { LabelStore } from './label-store';
import type { TurnPayload } from './turn-payload';
import { implicitSignals } from './signals';

/**
 * Turns completed turns into reward labels. Empathy and humanlike are judged when the turn arrives; the live
 * emotion reward when the user's next message arrives (or, after LEAVE_AFTER_MS of silence, the leaving is
 * recorded); then the implicit signals and the composite, and the turn is finished and announced. Arriving turns
 * are labelled a Kafka batch at a time by TurnBatchLabeller; this service holds the configuration and labels one
 * turn at a time for feedback, the leave sweep and backfills. Every step first looks at what is stored, so a
 * redelivered or replayed event only does what is still missing.
 */
@Injectable()
export class TurnLabeller {
  readonly version: string;
  readonly config: RewardConfig;
  private readonly labels: Counter<'component' | 'status'>;

  constructor(
    @Inject(LABELLER_ENV) env: LabellerEnv,
    private readonly store: LabelStore,
    private readonly judges: ComponentJudges,
    metrics: MetricsService,
  ) {
    this.version = env.LABELLER_VERSION;
    this.config = env.REWARD_CONFIG
      ? parseRewardConfig(JSON.parse(env.REWARD_CONFIG))
      : DEFAULT_REWARD_CONFIG;
    this.labels = metrics.counter('labeller_labels_total', 'Labels stored, by component and status', [
      'component',
      'status',
    ]);
  }

  /** Feedback on a turn, at any time: see LabelStore.applyFeedback. */
  async onFeedback(turnId: string, signals: TurnSignals): Promise<void> {
    await this.store.applyFeedback(turnId, signals, this.version, {
      config: this.config,
      // A finished turn was either answered or left: no next message means the user left.
      implicit: (turn) =>
        this.judges.implicit(implicitSignals(turn.signals, turn.repliedAt, !turn.signals.nextUserMessage)),
    });
  }

  /** A turn whose user never wrote again: its live emotion is the leaving. */
  async onAbandoned(turn: RewardTurnEntity): Promise<boolean> {
    const stored = await this.store.labelsOf(turn.turnId, this.version);
    if (!stored.has('empathy') || !stored.has('humanlike')) return false; // still being judged
    const score = await this.store.emotionScore(
      turn.conversationId,
      this.version,
      this.config.liveEmotion.startScore,
    );
    const left = stored.has('live_emotion') ? [] : [this.judges.left(score, this.config)];
    await this.finish(turn, [
      ...left,
      this.judges.implicit(implicitSignals(turn.signals, turn.repliedAt, true)),
    ]);
    return true;
  }

  /**
   * Labels a stored turn again under this labeller's version (backfills): the judges, then its live emotion if
   * the user answered it, or its leaving if they never did and `leftBefore` has passed.
   */
  async relabel(turn: RewardTurnEntity, leftBefore: Date): Promise<void> {
    if (turn.labelledVersions.includes(this.version)) return;
    await this.judgeReply(turn.turnId, turn.turn as unknown as TurnPayload);
    if (turn.signals.nextUserMessage) {
      // Of several alternatives, the user answered the one not regenerated or swiped away.
      await this.finishWithNext(turn, !turn.signals.regenerated && turn.signals.kept !== false);
    } else if (turn.repliedAt < leftBefore) {
      await this.onAbandoned(turn);
    }
  }

  /** Empathy and humanlike for a reply, unless stored or not sampled. */
  async judgeReply(turnId: string, turn: TurnPayload, reference: string | null = null): Promise<void> {
    const stored = await this.store.labelsOf(turnId, this.version);
    await this.save(
      turnId,
      await replyDrafts(this.judges, turnId, judgedReply(turn), stored, this.config, reference),
    );
  }

  private async finishWithNext(turn: RewardTurnEntity, answered: boolean): Promise<void> {
    if (turn.labelledVersions.includes(this.version)) return;
    const stored = await this.store.labelsOf(turn.turnId, this.version);
    if (!stored.has('live_emotion')) {
      const score = () =>
        this.store.emotionScore(turn.conversationId, this.version, this.config.liveEmotion.startScore);
      const { draft, scoreAfter, judged } = await liveEmotionDraft(
        this.judges,
        turn.turnId,
        turn.turn as unknown as TurnPayload,
        turn.signals.nextUserMessage?.content ?? '',
        answered,
        score,
        this.config,
      );
      if (!judged) await this.save(turn.turnId, [draft]);
      else {
        await this.store.saveEmotion(turn, this.version, draft, scoreAfter);
        this.labels.inc({ component: draft.component, status: draft.status });
      }
    }
    await this.finish(turn, [this.judges.implicit(implicitSignals(turn.signals, turn.repliedAt, false))]);
  }

  private async finish(turn: RewardTurnEntity, last: LabelDraft[]): Promise<void> {
    await this.store.finish(turn, this.version, last, this.config);
  }

  private async save(turnId: string, drafts: LabelDraft[]): Promise<void> {
    const inserted = await this.store.saveLabels(turnId, this.version, drafts);
    for (const d of drafts)
      if (inserted.has(d.component)) this.labels.inc({ component: d.component, status: d.status });
  }
}
