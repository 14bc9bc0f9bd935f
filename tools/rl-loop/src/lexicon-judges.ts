import type { ChatCompletionRequest } from '@echoloop/openai-compat';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';

export const LEXICON_MODEL = 'sentient-lexicon';

// What a warm companion says, and what a cold one does; counted in the reply being judged.
const WARM = [
  'sorry',
  'hear',
  'feel',
  'understand',
  "i'm here",
  'i am here',
  'that sounds',
  'must be',
  'not alone',
  "it's okay",
  'it is okay',
  'support',
  'listen',
  'care',
  'hard',
];
const COLD = [
  'whatever',
  'not my problem',
  'deal with it',
  'as an ai',
  'not equipped',
  'cannot provide',
  "can't help",
];

const count = (text: string, words: readonly string[]) => words.filter((w) => text.includes(w)).length;

/**
 * Warmth of the end of the last message (where every prompt below puts the reply being judged): warm words, a
 * question back to the user, attention on "you"; cold words weigh double. Fractional, so two replies rarely tie.
 */
function warmth(request: ChatCompletionRequest): number {
  const last = request.messages.at(-1);
  const text = (typeof last?.content === 'string' ? last.content : '').slice(-500).toLowerCase();
  if (!text.trim()) return -3;
  const asks = text.includes('?') ? 0.5 : 0;
  const you = Math.min(4, text.split(/\byou\b/).length - 1) * 0.25;
  return count(text, WARM) + asks + you - 2 * count(text, COLD);
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/**
 * A deterministic stand-in for the simulated user's and the judges' model: a 135M model cannot play a user or a
 * judge (on it, every pair of replies tied and most labels failed), so by default the loop's sentient user and
 * reward judges score warmth by a lexicon. The policy being trained, its training and its serving stay real.
 */
export function startLexiconJudges(): Promise<FakeVllm> {
  return startFakeVllm({
    model: LEXICON_MODEL,
    reply: (request) => {
      const w = warmth(request);
      const schema = (request.response_format as { json_schema?: { name?: string } } | undefined)?.json_schema
        ?.name;
      const system = request.messages[0]?.content;
      const instructions = typeof system === 'string' ? system : '';
      if (schema === 'sentient_analysis') {
        const change = clamp(Math.round(2 * w) - 2, -10, 10);
        return JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
      }
      if (schema === 'sentient_user_turn') {
        return JSON.stringify({ thinking: 't', draft: 'd', response: 'thanks, I should go', goodbye: true });
      }
      if (instructions.includes('how empathetic'))
        return `Lexicon.\nVerdict: ${clamp(Math.round(2 + w), 1, 5)}`;
      if (instructions.includes('like a machine'))
        return `Lexicon.\nVerdict: ${w < 0 ? 'robotic' : 'humanlike'}`;
      if (instructions.includes('emotional state')) return `Lexicon.\nChange: ${w >= 1 ? '+4' : '-4'}`;
      return 'I hear you.';
    },
  });
}
