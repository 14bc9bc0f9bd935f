import type { Schema } from './json-schema-sample';

/** The kinds of field whose database type has edges of its own, beyond what the JSON Schema says. */
export type EdgeKind = 'date-time' | 'uuid' | 'integer' | 'number' | 'cursor';

/** A field of a body, query or socket payload, by its path from the root. */
export interface TypedField {
  path: string[];
  kind: EdgeKind;
}

/**
 * Edge values of the type PostgreSQL keeps each kind in (timestamptz, uuid, int4/int8/float8, and the keyset a
 * cursor holds), as a client could send them: the schema may allow them; the database may not.
 */
export const EDGES: Record<EdgeKind, unknown[]> = {
  'date-time': [
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:30:00+01:00',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999Z',
    '9999-12-31T23:30:00-01:00',
    '+275760-09-13T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2026-01-01T00:00:00+15:59',
    '2026-01-01T00:00:00-23:59',
    '2026-01-01T00:00:00+24:00',
    '2026-01-01T00:00:00.1234567Z',
    '2026-01-01T00:00:00.999999999999999999Z',
    '2026-02-29T00:00:00Z',
    '2026-06-30T23:59:60Z',
    '2026-01-01T00:00:00',
    '2026-01-01',
    'infinity',
    '-infinity',
    'epoch',
    'Sat, 01 Jan 0000 00:00:00 GMT',
    1_767_225_600_000,
  ],
  uuid: [
    '00000000-0000-0000-0000-000000000000',
    'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    '{5eed0000-0000-4000-8000-000000000001}',
    '5eed0000000040008000000000000001',
    'urn:uuid:5eed0000-0000-4000-8000-000000000001',
    '5eed0000-0000-7000-8000-000000000001',
    '5eed0000-0000-4000-c000-000000000001',
    '5eed0000-0000-4000-8000-00000000000g',
  ],
  integer: [
    2_147_483_647,
    2_147_483_648,
    -2_147_483_649,
    2 ** 53 + 2,
    2 ** 63,
    -0,
    0.5,
    1e308,
    -1e308,
    5e-324,
    '1e400',
    'Infinity',
    '0x10',
    ' 7 ',
    '',
  ],
  number: [1e308, -1e308, 5e-324, -0, 2 ** 53 + 1, '1e400', '-Infinity', 'NaN', '1e-400', '0x1p3', ''],
  cursor: [
    Buffer.from(
      JSON.stringify({ repliedAt: '0000-01-01T00:00:00Z', turnId: '5eed0000-0000-4000-8000-000000000001' }),
    ).toString('base64url'),
    `${Buffer.from(JSON.stringify({ repliedAt: 'Sat, 01 Jan 0000 00:00:00 GMT', turnId: 'x' })).toString('base64url')}.${'A'.repeat(22)}`,
    `${Buffer.from(JSON.stringify({ repliedAt: '2026-01-01T00:00:00Z', turnId: '00000000-0000-0000-0000-000000000000' })).toString('base64url')}.${'A'.repeat(22)}`,
    `${Buffer.from('{"__proto__":{"x":1}}').toString('base64url')}.${'_'.repeat(22)}`,
    `${Buffer.from('not json').toString('base64url')}.${'-'.repeat(22)}`,
    '.',
    `${'A'.repeat(1_024)}.${'A'.repeat(22)}`,
    'bm90LWEtY3Vyc29y',
  ],
};

const CURSOR_NAME = /cursor/i;
const MAX_DEPTH = 6;

/** The kind of one (resolved) schema node, by name first (cursors are strings), then format and type. */
function kindOf(name: string | undefined, schema: Schema): EdgeKind | undefined {
  if (name && CURSOR_NAME.test(name)) return 'cursor';
  if (schema['format'] === 'date-time') return 'date-time';
  if (schema['format'] === 'uuid') return 'uuid';
  const types = ([] as string[]).concat(schema['type'] ?? []);
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  return undefined;
}

/**
 * Every field of a schema whose kind has database edges, nested objects included (export filters, say), each
 * with its path. Arrays are left to the hostile-value sweep.
 */
export function typedFields(
  schema: Schema | undefined,
  resolve: (ref: string) => Schema,
  name?: string,
  path: string[] = [],
): TypedField[] {
  if (!schema || path.length > MAX_DEPTH) return [];
  if (schema['$ref']) return typedFields(resolve(schema['$ref']), resolve, name, path);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[key] as Schema[] | undefined;
    if (options)
      return options.flatMap((option) => typedFields(option, resolve, name, path)).filter(unique());
  }
  const kind = path.length ? kindOf(name, schema) : undefined;
  if (kind) return [{ path, kind }];
  return Object.entries((schema['properties'] ?? {}) as Record<string, Schema>).flatMap(([key, child]) =>
    typedFields(child, resolve, key, [...path, key]),
  );
}

function unique() {
  const seen = new Set<string>();
  return (field: TypedField) => {
    const key = field.path.join('.');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
}

/** The value with `field` set to `value` at its path, making the objects on the way. */
export function withField(root: unknown, path: string[], value: unknown): unknown {
  if (!path.length) return value;
  const base = typeof root === 'object' && root !== null && !Array.isArray(root) ? root : {};
  const [head, ...rest] = path as [string, ...string[]];
  return { ...base, [head]: withField((base as Record<string, unknown>)[head], rest, value) };
}
