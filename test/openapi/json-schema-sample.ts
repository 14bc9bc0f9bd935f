export type Schema = Record<string, any>;

export interface SampleContext {
  /** Resolves `#/components/schemas/...` references of the document the schema comes from. */
  resolve(ref: string): Schema;
  /** A uuid for a field or parameter: a known row's id (so requests reach deep code) or a fresh one. */
  uuid(): string;
}

let counter = 0;

/** A plausible valid value for a JSON Schema (the subset zod emits): required properties only, minimal sizes. */
export function sampleOf(schema: Schema | undefined, context: SampleContext, depth = 0): unknown {
  if (!schema || depth > 8) return {};
  if (schema['$ref']) return sampleOf(context.resolve(schema['$ref']), context, depth + 1);
  if ('const' in schema) return schema['const'];
  if ('default' in schema) return schema['default'];
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[key] as Schema[] | undefined;
    const option = options?.find((o) => o['type'] !== 'null') ?? options?.[0];
    if (option) return sampleOf(option, context, depth + 1);
  }
  const type = Array.isArray(schema['type'])
    ? schema['type'].find((t: string) => t !== 'null')
    : schema['type'];
  switch (type) {
    case 'string':
      return stringSample(schema, context);
    case 'integer':
    case 'number':
      return Math.max(schema['minimum'] ?? 1, Math.min(schema['maximum'] ?? 1, 1));
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return Array.from({ length: schema['minItems'] ?? 0 }, () =>
        sampleOf(schema['items'] as Schema, context, depth + 1),
      );
    case 'object':
    case undefined: {
      if (!schema['properties'] && type === undefined) return {};
      const required = new Set<string>(schema['required'] ?? []);
      return Object.fromEntries(
        Object.entries((schema['properties'] ?? {}) as Record<string, Schema>)
          .filter(([name]) => required.has(name))
          .map(([name, property]) => [name, sampleOf(property, context, depth + 1)]),
      );
    }
    default:
      return {};
  }
}

function stringSample(schema: Schema, context: SampleContext): string {
  switch (schema['format']) {
    case 'uuid':
      return context.uuid();
    case 'email':
      return `sweep-${Date.now()}-${++counter}@example.com`;
    case 'date-time':
      return new Date(Date.now() + 86_400_000).toISOString();
    case 'uri':
    case 'url':
      return 'http://127.0.0.1:9/v1';
    default:
      return 'x'.repeat(Math.max(schema['minLength'] ?? 1, 8)).slice(0, schema['maxLength'] ?? 8);
  }
}

let uuids = 0;

/** A well-formed v4 uuid no row has; deterministic, so a failing run names the same requests again. */
export const freshUuid = (): string => `5eed0000-0000-4000-8000-${(++uuids).toString(16).padStart(12, '0')}`;
