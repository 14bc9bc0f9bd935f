import { overall, predict, type Scored, scoreFields, type FieldScore } from './score';
import type { ScriptedConversation } from './dataset';
import type { Inferrer } from './inferrers';

export interface Evaluation {
  inferrer: string;
  conversations: number;
  fields: FieldScore[];
  overall: { accuracy: number; confidentAccuracy: number };
  deepRuns: number;
  deepDropped: number;
  /** Per conversation: each predicted value next to the truth, to see where it went wrong. */
  details: {
    id: string;
    misses: { field: string; truth: unknown; predicted: unknown; confidence: number }[];
  }[];
}

/** Replays every conversation through the inferrer and scores its final profile against the truth. */
export async function evaluate(
  dataset: readonly ScriptedConversation[],
  inferrer: Inferrer,
  onProgress: (done: number, total: number, id: string) => void = () => undefined,
): Promise<Evaluation> {
  const scored: Scored[] = [];
  const details: Evaluation['details'] = [];
  let deepRuns = 0;
  let deepDropped = 0;
  for (const [i, conversation] of dataset.entries()) {
    const { profile, stats } = await inferrer.infer(conversation);
    // Scored as of the end of the conversation, when the gateway would build the next prompt.
    const end = new Date(Date.parse('2026-11-01T09:00:00Z') + conversation.turns.length * 60_000);
    const predictions = predict(profile, end);
    scored.push({ truth: conversation.truth, predictions });
    deepRuns += stats.deepRuns;
    deepDropped += stats.deepDropped;
    const misses = Object.entries(predictions)
      .filter(([field, p]) => p.value !== conversation.truth[field as keyof typeof conversation.truth])
      .map(([field, p]) => ({
        field,
        truth: conversation.truth[field as keyof typeof conversation.truth],
        predicted: p.value ?? null,
        confidence: Math.round(p.confidence * 100) / 100,
      }));
    details.push({ id: conversation.id, misses });
    onProgress(i + 1, dataset.length, conversation.id);
  }
  const fields = scoreFields(scored);
  return {
    inferrer: inferrer.name,
    conversations: dataset.length,
    fields,
    overall: overall(fields),
    deepRuns,
    deepDropped,
    details,
  };
}
