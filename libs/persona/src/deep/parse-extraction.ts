import { stripThink } from '@echoloop/vocabulary';
import { isCategoricalField, isCategoryOf, isNumericField, STATED_ONLY_FIELDS } from '../fields';
import { type Observation } from '../observation';
import { type DeepFieldReport, deepExtractionSchema } from './extraction-schema';
import { type ChatTurnText, userMessagesOf } from './transcript';

export type DeepExtractionResult =
  | { ok: true; observations: Observation[] }
  | { ok: false; problem: 'invalid_json' | 'out_of_schema'; detail: string };

/** Below this the model's own confidence in a stated age or gender is not taken as a statement. */
const STATED_MIN_CONFIDENCE = 0.8;

/**
 * The model's output as observations of the window's user messages, or what is wrong with it. Invalid JSON,
 * unknown fields, out-of-range values and evidence pointing past the window are all rejected as a whole: an
 * output that breaks the schema once is not trusted for its other fields.
 */
export function parseDeepExtraction(text: string, window: readonly ChatTurnText[]): DeepExtractionResult {
  let json: unknown;
  try {
    json = JSON.parse(stripWrapping(text));
  } catch {
    return { ok: false, problem: 'invalid_json', detail: 'the reply is not a JSON object' };
  }
  const parsed = deepExtractionSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const detail = issue ? `${issue.path.join('.') || 'root'}: ${issue.message}` : 'schema mismatch';
    return { ok: false, problem: 'out_of_schema', detail };
  }
  const users = userMessagesOf(window);
  const observations: Observation[] = [];
  for (const [field, report] of Object.entries(parsed.data)) {
    if (!report) continue;
    const cited = report.evidence.map((n) => users[n - 1]);
    if (cited.some((message) => message === undefined)) {
      return {
        ok: false,
        problem: 'out_of_schema',
        detail: `${field}.evidence: the conversation has ${users.length} user messages`,
      };
    }
    observations.push(...toObservations(field, report, cited as ChatTurnText[]));
  }
  return { ok: true, observations };
}

/** One observation per cited message, sharing the reported confidence as weight. */
function toObservations(field: string, report: DeepFieldReport, cited: ChatTurnText[]): Observation[] {
  const unique = [...new Map(cited.map((message) => [message.id, message])).values()];
  const stated = STATED_ONLY_FIELDS.has(field as never);
  if (stated && report.confidence < STATED_MIN_CONFIDENCE) return [];
  const weight = report.confidence / unique.length;
  return unique.flatMap((message): Observation[] => {
    const origin = {
      messageId: message.id,
      observedAt: message.createdAt.getTime(),
      weight,
      source: 'deep' as const,
      ...(stated && { explicit: true }),
    };
    if (isNumericField(field) && typeof report.value === 'number') {
      return [{ ...origin, field, value: report.value }];
    }
    if (isCategoricalField(field) && typeof report.value === 'string' && isCategoryOf(field, report.value)) {
      return [{ ...origin, field, value: report.value } as Observation];
    }
    return [];
  });
}

/** Models wrap JSON in a think block or a code fence now and then; neither is part of the answer. */
function stripWrapping(text: string): string {
  return stripThink(text)
    .replace(/^\s*```(?:json)?\s*/i, '')
    .replace(/\s*```\s*$/, '')
    .trim();
}
