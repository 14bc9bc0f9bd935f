import type { GbnfJsonSchema } from 'node-llama-cpp';
import { boundedNumberValues } from './bounded-number';
import { ResponseFormatError } from './chat-engine';

type Node = Record<string, unknown>;
type Path = readonly string[];

const knownTypes = new Set(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);
const grammarFormats = new Set(['date', 'time', 'date-time']);
const anyJson: Node = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};
/** Keywords that give away the type of a schema that does not name one. */
const impliedTypes: Record<string, string> = {
  properties: 'object',
  additionalProperties: 'object',
  required: 'object',
  items: 'array',
  prefixItems: 'array',
  minItems: 'array',
  maxItems: 'array',
  minLength: 'string',
  maxLength: 'string',
};

/**
 * Rewrites a standard JSON Schema into the subset node-llama-cpp 3.22 compiles to a grammar. That compiler ignores
 * keywords it does not know, but turns shapes it does not recognise (`anyOf`, `{}`, a type list with "object" or
 * "array", an unknown type) into `null`, an unknown `format` into `""`, and a dangling `$ref` into any value.
 *
 * Kept: type, properties, additionalProperties, items, prefixItems, min/maxItems, min/maxProperties,
 * min/maxLength, format date|time|date-time, enum and const of scalars, oneOf, $ref and $defs, description.
 * Rewritten: anyOf → oneOf; allOf of one schema → that schema; definitions → $defs; `true` and `{}` → any value;
 * a type list → oneOf of one type each; `{type: 'object'}` with no properties → any object; a number or integer
 * with both bounds → enum of the values in range on a decimal grid (see boundedNumberValues).
 * Dropped, so not enforced: one-sided or too wide numeric bounds, multipleOf, pattern, other formats,
 * patternProperties, not, if/then/else, title, default, examples. `required` is dropped too: the grammar always
 * emits every property. Without `additionalProperties`, an object with properties allows no other keys.
 * Refused (ResponseFormatError): allOf of several schemas, object or array const/enum values, non-local $refs.
 */
export function toGbnfJsonSchema(schema: unknown): GbnfJsonSchema {
  return convert(schema, ['response_format', 'json_schema', 'schema'], new Set()) as GbnfJsonSchema;
}

function convert(schema: unknown, path: Path, defNames: ReadonlySet<string>): Node {
  if (schema === true) return anyJson;
  if (!isNode(schema)) fail(path, 'a schema must be an object or true');
  const out: Node = {};
  if (typeof schema['description'] === 'string') out['description'] = schema['description'];
  const defs = {
    ...asNode(schema['definitions'], [...path, 'definitions']),
    ...asNode(schema['$defs'], [...path, '$defs']),
  };
  const scope = new Set([...defNames, ...Object.keys(defs)]);
  if (Object.keys(defs).length > 0) {
    out['$defs'] = mapValues(defs, (def, name) => convert(def, [...path, '$defs', name], scope));
  }
  if (schema['$ref'] !== undefined) return { ...out, $ref: localRef(schema['$ref'], path, scope) };
  if (schema['const'] !== undefined) return { ...out, const: scalar(schema['const'], [...path, 'const']) };
  if (schema['enum'] !== undefined) {
    const values = asArray(schema['enum'], [...path, 'enum']);
    return { ...out, enum: values.map((value, index) => scalar(value, [...path, 'enum', String(index)])) };
  }
  const alternatives = schema['oneOf'] ?? schema['anyOf'];
  if (alternatives !== undefined) {
    const keyword = schema['oneOf'] === undefined ? 'anyOf' : 'oneOf';
    const schemas = asArray(alternatives, [...path, keyword]);
    return {
      ...out,
      oneOf: schemas.map((alt, index) => convert(alt, [...path, keyword, String(index)], scope)),
    };
  }
  if (schema['allOf'] !== undefined) {
    const [only, ...more] = asArray(schema['allOf'], [...path, 'allOf']);
    if (more.length > 0) fail([...path, 'allOf'], 'allOf with more than one schema is not supported');
    return { ...out, ...convert(only, [...path, 'allOf', '0'], scope) };
  }
  const types = typesOf(schema, path);
  if (types.length === 0) return { ...out, ...anyJson };
  const typed = types.map((type) => convertTyped(schema, type, path, scope));
  return types.length === 1 ? { ...out, ...typed[0] } : { ...out, oneOf: typed };
}

function convertTyped(schema: Node, type: string, path: Path, scope: ReadonlySet<string>): Node {
  if (type === 'object') {
    const properties =
      schema['properties'] === undefined ? undefined : asNode(schema['properties'], [...path, 'properties']);
    const extra = schema['additionalProperties'];
    return {
      type,
      ...(properties && {
        properties: mapValues(properties, (value, name) =>
          convert(value, [...path, 'properties', name], scope),
        ),
      }),
      ...(extra === true || (extra === undefined && properties === undefined)
        ? { additionalProperties: true }
        : {}),
      ...(isNode(extra) && {
        additionalProperties: convert(extra, [...path, 'additionalProperties'], scope),
      }),
      ...counts(schema, ['minProperties', 'maxProperties']),
    };
  }
  if (type === 'array') {
    const { items } = schema;
    const prefix = Array.isArray(items) ? items : schema['prefixItems'];
    const prefixItems = prefix === undefined ? undefined : asArray(prefix, [...path, 'prefixItems']);
    return {
      type,
      ...(prefixItems && {
        prefixItems: prefixItems.map((item, index) =>
          convert(item, [...path, 'prefixItems', String(index)], scope),
        ),
      }),
      ...(isNode(items) && { items: convert(items, [...path, 'items'], scope) }),
      ...counts(schema, ['minItems', 'maxItems']),
      // `items: false` (2020-12) or `additionalItems: false` (draft 7) after a tuple closes it.
      ...((items === false || schema['additionalItems'] === false) &&
        prefixItems && { maxItems: prefixItems.length }),
    };
  }
  if (type === 'string') {
    const { format } = schema;
    return {
      type,
      ...(typeof format === 'string' && grammarFormats.has(format)
        ? { format }
        : counts(schema, ['minLength', 'maxLength'])),
    };
  }
  if (type === 'integer' || type === 'number') {
    const values = boundedNumberValues(schema, type === 'integer');
    return values ? { enum: values } : { type };
  }
  return { type };
}

function typesOf(schema: Node, path: Path): string[] {
  const { type } = schema;
  if (type === undefined) {
    const implied = Object.keys(impliedTypes).find((keyword) => schema[keyword] !== undefined);
    return implied ? [impliedTypes[implied] as string] : [];
  }
  const types = Array.isArray(type) ? type : [type];
  if (types.length === 0) fail([...path, 'type'], 'type must not be an empty list');
  for (const each of types) {
    if (typeof each !== 'string' || !knownTypes.has(each))
      fail([...path, 'type'], `unknown type ${JSON.stringify(each)}`);
  }
  return [...new Set(types as string[])];
}

function localRef(ref: unknown, path: Path, scope: ReadonlySet<string>): string {
  const match = typeof ref === 'string' ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref) : null;
  if (!match?.[1])
    fail([...path, '$ref'], 'only references to #/$defs/<name> or #/definitions/<name> are supported');
  const name = match[1].replaceAll('~1', '/').replaceAll('~0', '~');
  if (!scope.has(name)) fail([...path, '$ref'], `${String(ref)} does not point to a definition`);
  return `#/$defs/${name}`;
}

function scalar(value: unknown, path: Path): string | number | boolean | null {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value))
    return value as string | number | boolean | null;
  return fail(path, 'only string, number, boolean and null values are supported');
}

function counts(schema: Node, keywords: readonly string[]): Node {
  const out: Node = {};
  for (const keyword of keywords) {
    const value = schema[keyword];
    if (Number.isInteger(value) && (value as number) >= 0) out[keyword] = value;
  }
  return out;
}

function asNode(value: unknown, path: Path): Node {
  if (value === undefined) return {};
  if (!isNode(value)) fail(path, 'must be an object');
  return value;
}

function asArray(value: unknown, path: Path): unknown[] {
  if (!Array.isArray(value) || value.length === 0) fail(path, 'must be a non-empty list');
  return value;
}

function mapValues(node: Node, map: (value: unknown, key: string) => Node): Node {
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, map(value, key)]));
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(path: Path, problem: string): never {
  throw new ResponseFormatError(`Invalid JSON schema at ${path.join('.')}: ${problem}`);
}
