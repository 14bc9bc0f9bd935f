import type { Finish } from '@echoloop/openai-compat';
import { splitIntoTokens } from './word-piece-tokenizer';

export interface CompletionPlan {
  /** Content deltas in order; never empty (the last one may be '' so it can carry the finish reason). */
  pieces: string[];
  completionTokens: number;
  finish: Finish;
}

interface StopMatch {
  start: number;
  end: number;
  sequence: string;
}

/**
 * Generates the scripted reply the way vLLM would: the first stop string to complete within the
 * first maxTokens tokens ends the reply (excluded from the text, its tokens counted); otherwise the
 * reply is cut after maxTokens tokens.
 */
export function planCompletion(reply: string, maxTokens: number, stops: readonly string[]): CompletionPlan {
  const tokens = splitIntoTokens(reply);
  const window = tokens.slice(0, maxTokens);
  const stop = firstCompletedStop(window.join(''), stops);
  if (stop) return planStoppedAt(window, stop);
  const pieces = window.length > 0 ? window : [''];
  const finish: Finish =
    tokens.length > maxTokens ? { reason: 'length' } : { reason: 'stop', stopReason: null };
  return { pieces, completionTokens: window.length, finish };
}

function planStoppedAt(tokens: readonly string[], stop: StopMatch): CompletionPlan {
  const pieces: string[] = [];
  let completionTokens = 0;
  let offset = 0;
  for (const token of tokens) {
    if (offset >= stop.end) break;
    if (offset < stop.start) pieces.push(token.slice(0, stop.start - offset));
    completionTokens += 1;
    offset += token.length;
  }
  if (pieces.length === 0) pieces.push('');
  return { pieces, completionTokens, finish: { reason: 'stop', stopReason: stop.sequence } };
}

function firstCompletedStop(text: string, stops: readonly string[]): StopMatch | undefined {
  let first: StopMatch | undefined;
  for (const sequence of stops) {
    const start = text.indexOf(sequence);
    if (start === -1) continue;
    const match = { start, end: start + sequence.length, sequence };
    if (!first || match.end < first.end || (match.end === first.end && match.start < first.start))
      first = match;
  }
  return first;
}
