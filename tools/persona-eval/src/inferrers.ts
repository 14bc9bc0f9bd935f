import { type ChatModelClient, completeStructured, ModelError } from '@echoloop/llm';
import {
  deepExtractionCorrection,
  deepExtractionParser,
  deepExtractionRequest,
  EMPATHY_AXES,
  emptyProfile,
  HIDDEN_NEEDS,
  mergeObservations,
  type Observation,
  type UserProfile,
} from '@echoloop/persona';
import type { ScriptedConversation } from './dataset';
import { type DeepExtractor, replayConversation, type ReplayStats } from './replay';

export interface Inferrer {
  name: string;
  infer(conversation: ScriptedConversation): Promise<{ profile: UserProfile; stats: ReplayStats }>;
}

/** Fast features only: what the gateway knows before any deep extraction ran. */
export function fastInferrer(): Inferrer {
  return { name: 'fast', infer: (conversation) => replayConversation(conversation, undefined) };
}

/** Fast features plus the deep extraction from an OpenAI-compatible endpoint, scheduled as in the gateway. */
export function llmInferrer(
  name: string,
  client: ChatModelClient,
  model: string,
  contextTokens: number,
): Inferrer {
  const deep: DeepExtractor = async (window) => {
    const request = deepExtractionRequest(model, window, contextTokens);
    if (!request) return null;
    try {
      const outcome = await completeStructured(client, request, {
        parse: deepExtractionParser(window),
        correction: deepExtractionCorrection,
      });
      return outcome.ok ? outcome.value : null;
    } catch (error) {
      // The gateway counts a failed call and carries on with the fast profile; so does the evaluation.
      if (error instanceof ModelError) return null;
      throw error;
    }
  };
  return { name, infer: (conversation) => replayConversation(conversation, deep) };
}

const next = <T>(list: readonly T[], value: T): T => list[(list.indexOf(value) + 1) % list.length] as T;

/**
 * A deliberately wrong inferrer, confident in the opposite of every true trait: the evaluation must score it
 * near zero, or the scoring is broken.
 */
export function wrongInferrer(): Inferrer {
  return {
    name: 'wrong',
    infer: async ({ id, truth }) => {
      const at = Date.parse('2026-11-01T09:00:00Z');
      const base = {
        messageId: `${id}:wrong`,
        observedAt: at,
        weight: 1,
        source: 'fast' as const,
        explicit: true,
      };
      const observations: Observation[] = [
        { ...base, field: 'formality', value: truth.formality === 'casual' ? 0.9 : 0.1 },
        { ...base, field: 'verbosity', value: truth.verbosity === 'short' ? 0.9 : 0.1 },
        { ...base, field: 'emojiRate', value: truth.emoji ? 0 : 0.3 },
        { ...base, field: 'initiative', value: truth.initiative === 'active' ? 'passive' : 'active' },
        { ...base, field: 'hiddenNeed', value: next(HIDDEN_NEEDS, truth.hiddenNeed) },
        { ...base, field: 'empathyAxis', value: next(EMPATHY_AXES, truth.empathyAxis) },
        { ...base, field: 'language', value: truth.language === 'en' ? 'de' : 'en' },
      ];
      const profile = mergeObservations(emptyProfile(), observations, new Date(at));
      return { profile, stats: { deepRuns: 0, deepDropped: 0 } };
    },
  };
}
