import type { ResponseFormat } from '@echoloop/openai-compat';
import type { Llama } from 'node-llama-cpp';
import { ResponseFormatError } from './chat-engine';
import { createResponseGrammars } from './response-grammars';

/** Stands in for node-llama-cpp: a "grammar" is the schema it was made from. */
function fakeLlama() {
  const compiled: unknown[] = [];
  const llama = {
    getGrammarFor: async (type: string) => ({ builtIn: type }),
    createGrammarForJsonSchema: async (schema: unknown) => {
      compiled.push(schema);
      if (JSON.stringify(schema).includes('"too-deep"')) throw new Error('Maximum nesting scope exceeded.');
      return { schema };
    },
  };
  return { llama: llama as unknown as Llama, compiled };
}

const jsonSchema = (schema: Record<string, unknown>): ResponseFormat => ({
  type: 'json_schema',
  json_schema: { name: 'x', schema },
});

describe('createResponseGrammars', () => {
  it('gives no grammar for text and the JSON grammar for json_object or a json_schema without schema', async () => {
    const { llama } = fakeLlama();
    const grammars = createResponseGrammars(llama);
    expect(await grammars(undefined)).toBeUndefined();
    expect(await grammars({ type: 'text' })).toBeUndefined();
    expect(await grammars({ type: 'json_object' })).toEqual({ builtIn: 'json' });
    expect(await grammars({ type: 'json_schema', json_schema: { name: 'x' } })).toEqual({ builtIn: 'json' });
  });

  it('compiles the converted schema once and reuses it', async () => {
    const { llama, compiled } = fakeLlama();
    const grammars = createResponseGrammars(llama);
    const format = jsonSchema({ type: 'integer', minimum: 1 });
    const first = await grammars(format);
    expect(await grammars(jsonSchema({ type: 'integer', minimum: 1 }))).toBe(first);
    expect(compiled).toEqual([{ type: 'integer' }]);
  });

  it('forgets the least recently used schema past its capacity', async () => {
    const { llama, compiled } = fakeLlama();
    const grammars = createResponseGrammars(llama, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => jsonSchema({ const: name }));
    for (const format of [a, b, a, c, a, b]) await grammars(format);
    expect(compiled.map((schema) => (schema as { const: string }).const)).toEqual(['a', 'b', 'c', 'b']);
  });

  it('turns conversion and compilation failures into ResponseFormatError', async () => {
    const { llama } = fakeLlama();
    const grammars = createResponseGrammars(llama);
    await expect(grammars(jsonSchema({ type: 'decimal' }))).rejects.toThrow(ResponseFormatError);
    const deep = grammars(jsonSchema({ const: 'too-deep' }));
    await expect(deep).rejects.toThrow(ResponseFormatError);
    await expect(deep).rejects.toThrow(
      'The JSON schema cannot be turned into a grammar: Maximum nesting scope exceeded.',
    );
  });
});
