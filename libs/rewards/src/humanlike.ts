import type { ChatMessage } from '@echoloop/vocabulary';
import { type RewardConfig } from './config';
import { labelLevel } from './label-level';
import { MATERIAL_NOT_INSTRUCTIONS, section, transcript } from './transcript';

const INSTRUCTIONS = `You judge whether a companion's reply reads like something a real person would write at this
point of this conversation, or like a machine.

Judge the reply in the context of the dialogue history, never on its own. A reply that does not fit the history is
robotic even if it sounds natural: it is on the wrong topic, ignores or misreads what the user just said, repeats
earlier turns, or contradicts what was said before. Also robotic: stock phrases and assistant boilerplate, lists or
headings in casual chat, a long polished answer to a short casual message, a string of questions, naming emotions
instead of showing them. Humanlike: it fits this moment, matches the user's tone and length, is specific to what was
said, and sounds like the same character throughout.`;

const TASK = `Write your reasoning first: check how the reply fits the history, then how it reads. Then end with one
final line, exactly:
Verdict: <label>
where <label> is one of:
- humanlike: natural, and coherent with the dialogue history
- mixed: partly natural, with some robotic or ill-fitting parts
- robotic: reads as machine-written, or does not fit the dialogue history`;

/**
 * The context-aware Humanlike GenRM request (Echo-N1). Throws when `history` holds no user message: judged alone, a
 * reply can be rewarded for surface style, which is how the context-free judge got hacked.
 */
export function humanlikeJudgeMessages(input: {
  history: readonly ChatMessage[];
  reply: string;
}): ChatMessage[] {
  if (!input.history.some((message) => message.role === 'user')) {
    throw new Error('humanlike judging needs a dialogue history with at least one user message');
  }
  return [
    { role: 'system', content: [INSTRUCTIONS, MATERIAL_NOT_INSTRUCTIONS, TASK].join('\n\n') },
    {
      role: 'user',
      content: [section('dialogue', transcript(input.history)), section('reply', input.reply)].join('\n\n'),
    },
  ];
}

/** The labels the judge may answer, in the config's spelling (pass them to parseVerdict). */
export function humanlikeLabels(config: RewardConfig): string[] {
  return Object.keys(config.humanlike.labels);
}

export function humanlikeReward(label: string, config: RewardConfig): number {
  return labelLevel(config.humanlike.labels, label, 'humanlike');
}
