import { ResponseFormatError } from './chat-engine';
import { toGbnfJsonSchema } from './gbnf-json-schema';

const anyJson = {
  oneOf: [
    { type: ['string', 'number', 'boolean', 'null'] },
    { type: 'object', additionalProperties: true },
    { type: 'array' },
  ],
};

describe('toGbnfJsonSchema', () => {
  it('keeps what the grammar enforces and drops what it cannot', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'Report',
      type: 'object',
      properties: {
        value: { type: 'number', minimum: 0, multipleOf: 0.5, description: 'how sure' },
        evidence: {
          type: 'array',
          items: { type: 'integer', minimum: 1, maximum: 12 },
          minItems: 1,
          maxItems: 12,
        },
        mood: { type: 'string', enum: ['happy', 'sad'] },
        note: { type: 'string', minLength: 1, maxLength: 80, pattern: '^[a-z]+$' },
        email: { type: 'string', format: 'email', maxLength: 40 },
        when: { type: 'string', format: 'date-time' },
        count: { const: 3 },
      },
      required: ['value'],
      additionalProperties: false,
    };
    expect(toGbnfJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        value: { type: 'number', description: 'how sure' },
        evidence: {
          type: 'array',
          items: { enum: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] },
          minItems: 1,
          maxItems: 12,
        },
        mood: { enum: ['happy', 'sad'] },
        note: { type: 'string', minLength: 1, maxLength: 80 },
        email: { type: 'string', maxLength: 40 },
        when: { type: 'string', format: 'date-time' },
        count: { const: 3 },
      },
    });
  });

  it('rewrites shapes the grammar compiler would turn into null', () => {
    expect(toGbnfJsonSchema({ anyOf: [{ type: 'string' }, { type: 'null' }] })).toEqual({
      oneOf: [{ type: 'string' }, { type: 'null' }],
    });
    expect(toGbnfJsonSchema({ type: ['object', 'null'], properties: { a: { type: 'string' } } })).toEqual({
      oneOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'null' }],
    });
    expect(toGbnfJsonSchema({})).toEqual(anyJson);
    expect(toGbnfJsonSchema({ type: 'array', items: true })).toEqual({ type: 'array' });
    expect(toGbnfJsonSchema({ type: 'object' })).toEqual({ type: 'object', additionalProperties: true });
    expect(toGbnfJsonSchema({ properties: { a: { type: 'boolean' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'boolean' } },
    });
    expect(toGbnfJsonSchema({ allOf: [{ type: 'integer' }], description: 'n' })).toEqual({
      type: 'integer',
      description: 'n',
    });
  });

  it('turns bounded numbers into enums and leaves open ones unbounded', () => {
    expect(toGbnfJsonSchema({ type: 'integer', minimum: 1, maximum: 3 })).toEqual({ enum: [1, 2, 3] });
    expect(toGbnfJsonSchema({ type: 'number', minimum: 0, maximum: 0.003, description: 'd' })).toEqual({
      enum: [0, 0.001, 0.002, 0.003],
      description: 'd',
    });
    expect(toGbnfJsonSchema({ type: 'integer', minimum: 0 })).toEqual({ type: 'integer' });
    expect(toGbnfJsonSchema({ type: 'integer', minimum: 0, maximum: 256 })).toEqual({ type: 'integer' });
  });

  it('maps tuples, open objects and typed additional properties', () => {
    expect(
      toGbnfJsonSchema({ type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 2 }),
    ).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], minItems: 2 });
    expect(toGbnfJsonSchema({ type: 'array', prefixItems: [{ type: 'null' }], items: false })).toEqual({
      type: 'array',
      prefixItems: [{ type: 'null' }],
      maxItems: 1,
    });
    expect(toGbnfJsonSchema({ type: 'array', items: [{ type: 'string' }], additionalItems: false })).toEqual({
      type: 'array',
      prefixItems: [{ type: 'string' }],
      maxItems: 1,
    });
    expect(
      toGbnfJsonSchema({ type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 3 }),
    ).toEqual({
      type: 'object',
      additionalProperties: { type: 'integer' },
      maxProperties: 3,
    });
  });

  it('moves definitions to $defs and checks references', () => {
    const node = {
      type: 'object',
      properties: { next: { anyOf: [{ $ref: '#/definitions/Node' }, { type: 'null' }] } },
    };
    expect(toGbnfJsonSchema({ definitions: { Node: node }, $ref: '#/definitions/Node' })).toEqual({
      $defs: {
        Node: {
          type: 'object',
          properties: { next: { oneOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }] } },
        },
      },
      $ref: '#/$defs/Node',
    });
  });

  it.each([
    ['a non-object schema', 5, 'response_format.json_schema.schema: a schema must be an object or true'],
    ['an unknown type', { type: 'decimal' }, 'schema.type: unknown type "decimal"'],
    ['an object enum value', { enum: [{ a: 1 }] }, 'schema.enum.0: only string, number, boolean and null'],
    ['an array const', { const: [1] }, 'schema.const: only string, number, boolean and null'],
    ['allOf of two schemas', { allOf: [{ type: 'string' }, { maxLength: 3 }] }, 'allOf with more than one'],
    ['an empty anyOf', { anyOf: [] }, 'schema.anyOf: must be a non-empty list'],
    ['a remote $ref', { $ref: 'https://example.com/s.json' }, 'schema.$ref: only references to #/$defs'],
    ['a dangling $ref', { $ref: '#/$defs/Missing' }, '#/$defs/Missing does not point to a definition'],
    [
      'a deep bad property',
      { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 7 } } } } },
      'schema.properties.a.properties.b.type: unknown type 7',
    ],
  ])('refuses %s', (_name, schema, message) => {
    expect(() => toGbnfJsonSchema(schema)).toThrow(ResponseFormatError);
    expect(() => toGbnfJsonSchema(schema)).toThrow(message);
  });
});
