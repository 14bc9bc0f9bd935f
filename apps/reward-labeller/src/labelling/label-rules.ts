import type { RewardTurnEntity } from '@echoloop/persistence';
import { type RewardConfig, sampledFor } from '@echoloop/rewards';
import type { ComponentJudges, JudgedReply } from './component-judges';
import type { FinishStep } from './finish-plan';
import { type LabelDraft, skipped } from './label-draft';
import { implicitSignals } from './signals';
import type { TurnPayload } from './turn-payload';

/**
 * The labelling rules, one copy for every path (a Kafka batch, feedback, the leave sweep, backfills): which
 * components a reply gets and how, whatever the path stores them with.
 */

/** The reply and the dialogue it answers, as the judges read them. */
export function judgedReply(turn: TurnPayload): JudgedReply {
  return {
    history: [
      ...turn.history.filter((m) => m.role !== 'system'),
      { role: 'user', content: turn.userMessage.content },
    ],
    reply: turn.assistantMessage.content,
    reasoning: turn.assistantMessage.reasoning,
    finishReason: turn.assistantMessage.finishReason,
  };
}

/** Empathy and humanlike for a reply: those not stored yet, judged when sampled, else skipped as not sampled. */
export function replyDrafts(
  judges: ComponentJudges,
  turnId: string,
  reply: JudgedReply,
  stored: { has(component: string): boolean },
  config: RewardConfig,
  reference: string | null = null,
): Promise<LabelDraft[]> {
  const judge = (component: 'empathy' | 'humanlike', run: () => Promise<LabelDraft>) =>
    stored.has(component)
      ? undefined
      : sampledFor(turnId, component, config.sampling[component])
        ? run()
        : skipped(component, 'not sampled');
  return Promise.all([
    judge('empathy', () => judges.empathy(reply, reference, config)),
    judge('humanlike', () => judges.humanlike(reply, config)),
  ]).then((all) => all.filter((d): d is LabelDraft => d !== undefined));
}

/** Reads the conversation's live emotion score when a judge needs it (not for a skipped or stored label). */
export type ScoreBefore = () => number | Promise<number>;

/**
 * How a turn the user wrote after ends: its live emotion, unless stored (judged from the conversation's score
 * before it for the alternative they carried on from, `answered`; skipped for another alternative or when not
 * sampled; `scoreAfter`, when the judge gave one, moves the conversation's score), then its implicit label.
 */
export async function answeredStep(
  judges: ComponentJudges,
  turn: RewardTurnEntity,
  answered: boolean,
  stored: { has(component: string): boolean },
  score: ScoreBefore,
  config: RewardConfig,
): Promise<FinishStep> {
  const emotion = async () => {
    if (!answered) return skip('the user answered another alternative');
    if (!sampledFor(turn.turnId, 'live_emotion', config.sampling.live_emotion)) return skip('not sampled');
    const reply = judgedReply(turn.turn as unknown as TurnPayload);
    return judges.liveEmotion(reply, turn.signals.nextUserMessage?.content ?? '', await score(), config);
  };
  return {
    turn,
    emotion: stored.has('live_emotion') ? null : await emotion(),
    last: [judges.implicit(implicitSignals(turn.signals, turn.repliedAt, false))],
  };
}

/** How a turn the user never answered ends: the leaving as its live emotion (unless stored), its implicit label. */
export async function leftStep(
  judges: ComponentJudges,
  turn: RewardTurnEntity,
  stored: { has(component: string): boolean },
  score: ScoreBefore,
  config: RewardConfig,
): Promise<FinishStep> {
  const left = stored.has('live_emotion') ? [] : [judges.left(await score(), config)];
  return {
    turn,
    emotion: null,
    last: [...left, judges.implicit(implicitSignals(turn.signals, turn.repliedAt, true))],
  };
}

function skip(reason: string): { draft: LabelDraft; scoreAfter: null } {
  return { draft: skipped('live_emotion', reason), scoreAfter: null };
}
