import type { ChatMessage } from '@echoloop/vocabulary';
import {
  applyEmotionDelta,
  emotionAnalyserMessages,
  emotionBucket,
  empathyJudgeMessages,
  empathyLabels,
  empathyMode,
  empathyReward,
  humanlikeJudgeMessages,
  humanlikeLabels,
  humanlikeReward,
  implicitReward,
  type ImplicitSignals,
  leftReward,
  liveEmotionReward,
  parseEmotionDelta,
  parseVerdict,
  verdictPattern,
  emotionChangePattern,
  processGate,
  type RewardConfig,
} from '@echoloop/rewards';
import { Injectable } from '@nestjs/common';
import { JudgeRunner } from '../judges/judge-runner';
import type { LabelDraft } from './label-draft';

/** Bumped whenever a judge prompt changes, so stored labels can be traced to the prompt that made them. */
export const PROMPT_VERSIONS = {
  empathy: 'empathy-genrm-v1',
  humanlike: 'humanlike-genrm-v1',
  live_emotion: 'emotion-analyser-v1',
} as const;

export interface JudgedReply {
  /** The dialogue before the reply, ending with the user message it answers. */
  history: ChatMessage[];
  reply: string;
  reasoning: string | null;
  finishReason: 'stop' | 'length' | 'cancelled' | 'error';
}

const correction = (labels: string) => (detail: string) =>
  `Your answer could not be read (${detail}). End with one line "Verdict: <label>", label one of: ${labels}.`;

/** Each reward component of one reply, as a label draft: the judge call, its parsing, its reward rule. */
@Injectable()
export class ComponentJudges {
  constructor(private readonly judges: JudgeRunner) {}

  /** Echo-N1's empathy GenRM: R = R_process × r_empathy, against the reference reply when there is one. */
  async empathy(turn: JudgedReply, reference: string | null, config: RewardConfig): Promise<LabelDraft> {
    const gate = processGate({
      content: turn.reply,
      reasoning: turn.reasoning,
      finishReason: turn.finishReason === 'error' ? 'cancelled' : turn.finishReason,
    });
    const base = { component: 'empathy' as const, promptVersion: PROMPT_VERSIONS.empathy };
    if (gate.value === 0) {
      // The product is zero whatever the judge says: no need to ask it.
      return { ...base, ...empty, status: 'labelled', value: 0, label: 'process_failed', details: { gate } };
    }
    const mode = empathyMode(reference);
    const labels = empathyLabels(mode, config);
    const outcome = await this.judges.judge({
      component: 'empathy',
      messages: () => empathyJudgeMessages({ history: turn.history, reply: turn.reply, reference }),
      parse: (text) => parseVerdict(text, labels),
      correction: correction(labels.join(', ')),
      pattern: verdictPattern(labels),
    });
    if (!outcome.ok) return failed(base, outcome);
    const value = empathyReward(outcome.value.label, mode, gate, config);
    return {
      ...base,
      ...judged(outcome),
      value,
      label: outcome.value.label,
      details: { mode, gate, reasoning: outcome.value.reasoning },
    };
  }

  /** Echo-N1's humanlike GenRM, always judged within the dialogue history. */
  async humanlike(turn: JudgedReply, config: RewardConfig): Promise<LabelDraft> {
    const base = { component: 'humanlike' as const, promptVersion: PROMPT_VERSIONS.humanlike };
    const labels = humanlikeLabels(config);
    const outcome = await this.judges.judge({
      component: 'humanlike',
      messages: () => humanlikeJudgeMessages({ history: turn.history, reply: turn.reply }),
      parse: (text) => parseVerdict(text, labels),
      correction: correction(labels.join(', ')),
      pattern: verdictPattern(labels),
    });
    if (!outcome.ok) return failed(base, outcome);
    return {
      ...base,
      ...judged(outcome),
      value: humanlikeReward(outcome.value.label, config),
      label: outcome.value.label,
      details: { reasoning: outcome.value.reasoning },
    };
  }

  /**
   * RLVER's sentient analyser applied to the real user: how the reply moved their emotion, read from their next
   * message. Returns the label and the conversation's score after it (null when the analyser failed).
   */
  async liveEmotion(
    turn: JudgedReply,
    nextUserMessage: string,
    scoreBefore: number,
    config: RewardConfig,
  ): Promise<{ draft: LabelDraft; scoreAfter: number | null }> {
    const base = { component: 'live_emotion' as const, promptVersion: PROMPT_VERSIONS.live_emotion };
    const outcome = await this.judges.judge({
      component: 'live_emotion',
      messages: () =>
        emotionAnalyserMessages({
          history: turn.history,
          reply: turn.reply,
          nextUserMessage,
          currentScore: scoreBefore,
        }),
      parse: (text) => parseEmotionDelta(text, config.liveEmotion.maxDelta),
      correction: () =>
        'Your answer could not be read. End with one line "Change: <signed integer>", for example "Change: -3".',
      pattern: emotionChangePattern(),
    });
    if (!outcome.ok) return { draft: failed(base, outcome), scoreAfter: null };
    const { delta, rawDelta, reasoning } = outcome.value;
    const scoreAfter = applyEmotionDelta(scoreBefore, delta, config);
    return {
      draft: {
        ...base,
        ...judged(outcome),
        value: liveEmotionReward(delta, config),
        label: emotionBucket(scoreAfter),
        details: { delta, rawDelta, scoreBefore, scoreAfter, reasoning },
      },
      scoreAfter,
    };
  }

  /** No next message within the configured time: the user's leaving is its own signal. */
  left(scoreBefore: number, config: RewardConfig): LabelDraft {
    return {
      component: 'live_emotion',
      ...empty,
      status: 'labelled',
      value: leftReward(config),
      label: 'left',
      promptVersion: null,
      details: { scoreBefore },
    };
  }

  implicit(signals: ImplicitSignals): LabelDraft {
    return {
      component: 'implicit',
      ...empty,
      status: 'labelled',
      value: implicitReward(signals),
      label: null,
      promptVersion: null,
      details: { ...signals },
    };
  }
}

const empty = { judgeModel: null, rawOutput: null, error: null, label: null, details: null };

function judged(outcome: { raw: string; model: string }) {
  return { status: 'labelled' as const, judgeModel: outcome.model, rawOutput: outcome.raw, error: null };
}

function failed(
  base: Pick<LabelDraft, 'component' | 'promptVersion'>,
  outcome: { error: string; raw: string | null; model: string },
): LabelDraft {
  return {
    ...base,
    status: 'failed',
    value: null,
    label: null,
    judgeModel: outcome.model,
    rawOutput: outcome.raw,
    error: outcome.error,
    details: null,
  };
}
