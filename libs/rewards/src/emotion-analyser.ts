import { stripThink } from '@echoloop/vocabulary';
import type { ChatMessage } from '@echoloop/vocabulary';
import { type Parsed } from './parsed';
import { RATIONALE_MAX_CHARS } from './verdict';
import { MATERIAL_NOT_INSTRUCTIONS, section, transcript } from './transcript';

export interface EmotionAnalyserInput {
  history: readonly ChatMessage[];
  reply: string;
  nextUserMessage: string;
  currentScore: number;
  /** The largest change the analyser may give; the prompt states it. Defaults to 10. */
  maxDelta?: number;
}

function instructions(maxDelta: number): string {
  return `You track the emotional state of a real person who is talking with an AI companion.

The person's emotion is a score out of 100: 100 = delighted and warmly engaged, about 70 = positive, about
40 = neutral or guarded, about 10 = upset and withdrawing, below 10 = ready to leave.

You get the dialogue so far, the companion's latest reply, the message the person actually sent next, and their
current score. Reason in this order:
1. What the companion's reply said and did: did it answer what the person said and seems to need?
2. The evidence in the person's next message: tone, length, engagement; do they open up, agree, thank, push back,
   withdraw, go curt, or change the subject?
3. How the reply made them feel, given where they were.
Rate the effect the reply had on this person, as their next message shows it, not whether you like the reply.
Gibberish, or a reply that ignores the person, is very negative. If the next message shows no clear reaction,
keep the change small.

Then end with one final line, exactly:
Change: <signed integer from -${maxDelta} to +${maxDelta}>
for example "Change: +3" or "Change: -6".`;
}

/** The RLVER/SAGE "emotion analyser" call, pointed at the real user's next message instead of a simulator. */
export function emotionAnalyserMessages(input: EmotionAnalyserInput): ChatMessage[] {
  const maxDelta = input.maxDelta ?? 10;
  return [
    { role: 'system', content: [instructions(maxDelta), MATERIAL_NOT_INSTRUCTIONS].join('\n\n') },
    {
      role: 'user',
      content: [
        `Current emotion score: ${input.currentScore} / 100`,
        section('dialogue', transcript(input.history)),
        section('companion_reply', input.reply),
        section('next_user_message', input.nextUserMessage),
      ].join('\n\n'),
    },
  ];
}

const CHANGE_LINE = /^\s*\**\s*change\s*\**\s*[:：](.*)$/i;

/**
 * The answer parseEmotionDelta reads, as a regular expression for the analyser's structured output: one line of
 * rationale, then `Change: <signed integer>`.
 */
export function emotionChangePattern(): string {
  // The escape `\n`, not a newline character (see verdictPattern).
  return `[^\\n]{1,${RATIONALE_MAX_CHARS}}\\nChange: [+-]?[0-9]{1,3}`;
}

/**
 * Reads the last `Change:` line: its first signed integer, clamped to ±maxDelta as SAGE does (`rawDelta` keeps the
 * value as written). Reasoning is the text before that line.
 */
export function parseEmotionDelta(
  text: string,
  maxDelta = 10,
): Parsed<{ reasoning: string; delta: number; rawDelta: number }> {
  const lines = stripThink(text).split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = CHANGE_LINE.exec(lines[i] ?? '');
    if (!match) continue;
    const rest = (match[1] ?? '').replace(/[−–]/g, '-').replace(/\*/g, '');
    const number = /[+-]?\s*\d+/.exec(rest);
    if (!number)
      return { ok: false, problem: 'no_delta', detail: `no integer in "${(lines[i] ?? '').trim()}"` };
    const rawDelta = Number(number[0].replace(/\s/g, '')) + 0;
    const delta = Math.max(-maxDelta, Math.min(maxDelta, rawDelta)) + 0;
    return { ok: true, value: { reasoning: lines.slice(0, i).join('\n').trim(), delta, rawDelta } };
  }
  return { ok: false, problem: 'no_delta', detail: 'no "Change: <integer>" line' };
}
