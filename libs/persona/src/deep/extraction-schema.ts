import { z } from 'zod';
import { CATEGORICAL_FIELDS, NUMERIC_FIELDS } from '../fields';
import { DEEP_CATEGORICAL_FIELDS, DEEP_NUMERIC_FIELDS } from './deep-fields';

/** The most user messages one extraction reads (the newest of the conversation). */
export const DEEP_WINDOW_USER_MESSAGES = 12;

const confidence = z.number().min(0).max(1);
/** Messages one field may cite: enough to show a pattern, few enough to keep the reply short. */
export const DEEP_MAX_EVIDENCE = 5;

/** 1-based numbers of the user messages in the window that show the field. */
const evidence = z.array(z.int().min(1).max(DEEP_WINDOW_USER_MESSAGES)).min(1).max(DEEP_MAX_EVIDENCE);

const numericShape = Object.fromEntries(
  DEEP_NUMERIC_FIELDS.map((name) => {
    const { min, max } = NUMERIC_FIELDS[name];
    return [name, z.strictObject({ value: z.number().min(min).max(max), confidence, evidence }).optional()];
  }),
);
const categoricalShape = Object.fromEntries(
  DEEP_CATEGORICAL_FIELDS.map((name) => [
    name,
    z.strictObject({ value: z.enum(CATEGORICAL_FIELDS[name]), confidence, evidence }).optional(),
  ]),
);

/** One field as the model reports it. */
export interface DeepFieldReport {
  value: number | string;
  confidence: number;
  evidence: number[];
}

/**
 * What the extraction model must return: for each field it can judge, a value, a confidence and the numbers of
 * the user messages behind it; fields it cannot judge are left out. Unknown keys are out of schema.
 */
export const deepExtractionSchema: z.ZodType<Partial<Record<string, DeepFieldReport>>> = z.strictObject({
  ...numericShape,
  ...categoricalShape,
});

/** The same schema as JSON Schema, for `response_format` (vLLM guided decoding). */
export const deepExtractionJsonSchema: Record<string, unknown> = (() => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(deepExtractionSchema) as Record<string, unknown>;
  return schema;
})();
