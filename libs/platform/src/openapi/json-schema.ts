import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as the JSON Schema (2020-12, the dialect of OpenAPI 3.1) of what a client sends. Shared
 * definitions (recursive types) are hoisted into `defs` under `prefix`, as `#/$defs` does not resolve inside an
 * OpenAPI document. What JSON Schema cannot express (refinements, custom types) is left open, never guessed.
 */
export function toJsonSchema(
  schema: z.ZodType,
  defs: Record<string, JsonSchema>,
  prefix: string,
): JsonSchema {
  const {
    $schema: _dialect,
    $defs,
    ...rest
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  if (!$defs) return rest;
  const rename = (ref: string) => ref.replace(/^#\/\$defs\//, `#/components/schemas/${prefix}_`);
  for (const [name, def] of Object.entries($defs)) defs[`${prefix}_${name}`] = rewriteRefs(def, rename);
  return rewriteRefs(rest, rename);
}

function rewriteRefs(value: JsonSchema, rename: (ref: string) => string): JsonSchema {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, child]) => [
        key,
        key === '$ref' && typeof child === 'string' ? rename(child) : walk(child),
      ]),
    );
  };
  return walk(value) as JsonSchema;
}
