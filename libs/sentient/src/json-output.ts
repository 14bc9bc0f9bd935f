import { stripThink } from '@echoloop/vocabulary';
import { type Parsed } from '@echoloop/rewards';
import { z } from 'zod';

/** A zod schema as JSON Schema for `response_format` (guided decoding), without the `$schema` key. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

/**
 * Reads a model's JSON answer: reasoning markup and a ```json fence are tolerated, then the outermost `{…}` must
 * parse and match the schema. Problems: 'not_json' or 'bad_shape'.
 */
export function parseJsonOutput<T>(text: string, schema: z.ZodType<T>): Parsed<T> {
  const body = stripThink(text).trim();
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end < start)
    return { ok: false, problem: 'not_json', detail: 'no JSON object in the output' };
  let json: unknown;
  try {
    json = JSON.parse(body.slice(start, end + 1));
  } catch (error) {
    return { ok: false, problem: 'not_json', detail: (error as Error).message };
  }
  const result = schema.safeParse(json);
  if (!result.success) return { ok: false, problem: 'bad_shape', detail: z.prettifyError(result.error) };
  return { ok: true, value: result.data };
}
