import { z } from 'zod';
import { preferenceRecord, turnRecord } from './kinds/records';
import { sftRecord, verlRecord } from './kinds/training';
import { manifestSchema } from './manifest';

/** Every export schema, as the JSON Schema documents in docs/schemas/ (generated, never hand-written). */
export const RECORD_SCHEMAS = {
  'dataset-turn.schema.json': turnRecord,
  'dataset-preference.schema.json': preferenceRecord,
  'dataset-sft.schema.json': sftRecord,
  'dataset-verl.schema.json': verlRecord,
  'dataset-manifest.schema.json': manifestSchema,
} as const;

export function recordJsonSchemas(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(RECORD_SCHEMAS).map(([file, schema]) => [
      file,
      `${JSON.stringify({ $id: `https://echoloop.dev/schemas/${file}`, ...z.toJSONSchema(schema, { io: 'output' }) }, null, 2)}\n`,
    ]),
  );
}
