import { type Observation } from '../observation';
import { deepExtractionMessages } from './extraction-prompt';
import { deepExtractionJsonSchema } from './extraction-schema';
import { parseDeepExtraction } from './parse-extraction';
import { type ChatTurnText } from './transcript';

/** Enough for every field with the most evidence (about 40 tokens a field). */
export const DEEP_EXTRACTION_MAX_TOKENS = 900;

/** A reply shorter than this cannot hold a useful extraction: better not to ask. */
const MIN_REPLY_TOKENS = 160;

/**
 * The chat completion request of one extraction (an llm ChatRequest): greedy, constrained to the schema, its
 * reply budget what the model's context leaves (a token counted as 2.4 characters: small models split finely); null when too
 * little is left.
 */
export function deepExtractionRequest(model: string, window: readonly ChatTurnText[], contextTokens: number) {
  const messages = deepExtractionMessages(window);
  const promptTokens = Math.ceil(messages.reduce((sum, m) => sum + m.content.length, 0) / 2.4) + 48;
  const maxTokens = Math.min(DEEP_EXTRACTION_MAX_TOKENS, contextTokens - promptTokens);
  if (maxTokens < MIN_REPLY_TOKENS) return null;
  return {
    model,
    messages,
    maxTokens,
    temperature: 0,
    responseFormat: {
      type: 'json_schema' as const,
      json_schema: { name: 'user_profile', schema: deepExtractionJsonSchema, strict: true },
    },
  };
}

/** Parses a reply to that request into observations, in the shape a structured completion expects. */
export function deepExtractionParser(window: readonly ChatTurnText[]) {
  return (text: string) => {
    const parsed = parseDeepExtraction(text, window);
    return parsed.ok ? { ok: true as const, value: parsed.observations as Observation[] } : parsed;
  };
}
