import { type RewardConfig, sampledFor } from '@echoloop/rewards';
import type { ComponentJudges, JudgedReply } from './component-judges';
import { type LabelDraft, skipped } from './label-draft';
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

/**
 * The live emotion of a turn the user's next message answers (of several alternatives, only the one they carried
 * on from), from the conversation's score before it (read only when judged); skipped when another alternative was answered or when not
 * sampled (`judged` false). `scoreAfter` is the conversation's score after it, when the judge gave one.
 */
export function liveEmotionDraft(
  judges: ComponentJudges,
  turnId: string,
  turn: TurnPayload,
  next: string,
  answered: boolean,
  score: () => number | Promise<number>,
  config: RewardConfig,
): Promise<{ draft: LabelDraft; scoreAfter: number | null; judged: boolean }> {
  const skip = (reason: string) =>
    Promise.resolve({ draft: skipped('live_emotion', reason), scoreAfter: null, judged: false });
  if (!answered) return skip('the user answered another alternative');
  if (!sampledFor(turnId, 'live_emotion', config.sampling.live_emotion)) return skip('not sampled');
  const judged = async () => judges.liveEmotion(judgedReply(turn), next, await score(), config);
  return judged().then((r) => ({ ...r, judged: true }));
}
