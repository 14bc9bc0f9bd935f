import { EMPATHY_AXES, HIDDEN_NEEDS, INITIATIVES, LANGUAGES } from '@echoloop/persona';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** The traits a scripted conversation was written to show: what the evaluation scores. */
export const truthSchema = z.strictObject({
  formality: z.enum(['casual', 'formal']),
  verbosity: z.enum(['short', 'long']),
  emoji: z.boolean(),
  initiative: z.enum(INITIATIVES),
  hiddenNeed: z.enum(HIDDEN_NEEDS),
  empathyAxis: z.enum(EMPATHY_AXES),
  language: z.enum(LANGUAGES),
});
export type Truth = z.infer<typeof truthSchema>;
export type TruthField = keyof Truth;
export const TRUTH_FIELDS = Object.keys(truthSchema.shape) as TruthField[];

export const scriptedConversationSchema = z.strictObject({
  id: z.string().min(1),
  persona: z.string().min(1),
  truth: truthSchema,
  turns: z.array(z.strictObject({ user: z.string().min(1), assistant: z.string().min(1) })).min(2),
  /**
   * What a careful extractor would report having read every user message (for the scripted test server); a set
   * without it runs with the fast and model inferrers only, since the scripted mode only tests the pipeline.
   */
  scriptedExtraction: z.record(z.string(), z.unknown()).optional(),
});
export type ScriptedConversation = z.infer<typeof scriptedConversationSchema>;

/**
 * `dev`: the 16 conversations the prompts and rules were written and tuned against, with their scripted
 * extractions; `heldout`: 32 conversations written afterwards, from a balanced list of traits, by authors who saw
 * neither the rules, the prompts nor the dev set, and never used to change them (heldout.spec.ts keeps their text
 * out of all three).
 */
export const DATASETS = {
  dev: join(__dirname, '..', 'data', 'conversations.json'),
  heldout: join(__dirname, '..', 'data', 'heldout.json'),
} as const;
export type DatasetName = keyof typeof DATASETS;

export const DEFAULT_DATASET = DATASETS.dev;

/** A dataset by name (`dev`, `heldout`) or path. */
export function loadDataset(nameOrPath: string = DEFAULT_DATASET): ScriptedConversation[] {
  const path = DATASETS[nameOrPath as DatasetName] ?? nameOrPath;
  return z
    .array(scriptedConversationSchema)
    .min(1)
    .parse(JSON.parse(readFileSync(path, 'utf8')));
}
