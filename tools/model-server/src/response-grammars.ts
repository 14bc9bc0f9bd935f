import type { ResponseFormat } from '@echoloop/openai-compat';
import type { GbnfJsonSchema, Llama, LlamaGrammar } from 'node-llama-cpp';
import { ResponseFormatError } from './chat-engine';
import { toGbnfJsonSchema } from './gbnf-json-schema';

export type ResponseGrammars = (format: ResponseFormat | undefined) => Promise<LlamaGrammar | undefined>;

/** Compiles `response_format` into llama.cpp grammars, keeping the most recently used ones. */
export function createResponseGrammars(llama: Llama, capacity = 32): ResponseGrammars {
  // Failures are cached too: compiling the same schema fails the same way.
  const cache = new Map<string, Promise<LlamaGrammar>>();
  return (format) => {
    if (format == null || format.type === 'text') return Promise.resolve(undefined);
    const schema = format.type === 'json_schema' ? format.json_schema.schema : undefined;
    const key = schema === undefined ? '' : JSON.stringify(schema);
    const grammar = cache.get(key) ?? compile(llama, schema);
    cache.delete(key);
    cache.set(key, grammar);
    const oldest = cache.keys().next().value;
    if (cache.size > capacity && oldest !== undefined) cache.delete(oldest);
    return grammar;
  };
}

async function compile(llama: Llama, schema: Record<string, unknown> | undefined): Promise<LlamaGrammar> {
  // A json_schema without a schema asks for any JSON object, as json_object does.
  if (schema === undefined) return llama.getGrammarFor('json');
  const gbnfSchema = toGbnfJsonSchema(schema);
  try {
    return await llama.createGrammarForJsonSchema<GbnfJsonSchema>(gbnfSchema);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ResponseFormatError(`The JSON schema cannot be turned into a grammar: ${message}`);
  }
}
