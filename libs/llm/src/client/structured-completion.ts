import type { ChatCompletionText, ChatModelClient, ChatRequest } from './chat-model-client';

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string; detail: string };

export type StructuredOutcome<T> =
  | { ok: true; value: T; attempts: number; raw: string }
  | { ok: false; problem: string; detail: string; attempts: number; raw: string };

export interface StructuredCompletionOptions<T> {
  parse: (text: string) => Parsed<T>;
  /** The user message asking for a corrected reply, given what was wrong with the first. */
  correction: (detail: string) => string;
  signal?: AbortSignal;
}

/**
 * A completion whose text must parse: one retry, told what was wrong with the first reply, then the failure is
 * returned (never thrown) for the caller to count and drop. Transport errors still throw ModelError.
 */
export async function completeStructured<T>(
  client: Pick<ChatModelClient, 'complete'>,
  request: ChatRequest,
  { parse, correction, signal }: StructuredCompletionOptions<T>,
): Promise<StructuredOutcome<T>> {
  const first = await client.complete(request, signal);
  const firstParse = parseWhole(first, parse);
  if (firstParse.ok) return { ...firstParse, attempts: 1, raw: first.text };
  const retry = withCorrection(request, correction(firstParse.detail));
  const second = await client.complete(retry, signal);
  const secondParse = parseWhole(second, parse);
  if (secondParse.ok) return { ...secondParse, attempts: 2, raw: second.text };
  return { ...secondParse, attempts: 2, raw: second.text };
}

function parseWhole<T>(completion: ChatCompletionText, parse: (text: string) => Parsed<T>): Parsed<T> {
  const parsed = parse(completion.text);
  // A reply cut at max_tokens that still parses is fine; one that does not says why.
  if (!parsed.ok && completion.finishReason === 'length') {
    return { ...parsed, detail: `${parsed.detail} (the reply hit the token limit)` };
  }
  return parsed;
}

/**
 * The same request with the correction appended to its last message. The bad reply itself is not sent back: it
 * can be as long as the whole reply budget, and the prompt plus the budget must still fit the context.
 */
function withCorrection(request: ChatRequest, correction: string): ChatRequest {
  const messages = [...request.messages];
  const last = messages.pop();
  const corrected =
    last?.role === 'user'
      ? [...messages, { ...last, content: `${last.content}\n\n${correction}` }]
      : [...request.messages, { role: 'user' as const, content: correction }];
  const extra = Math.ceil(correction.length / CHARS_PER_TOKEN) + 8;
  return {
    ...request,
    messages: corrected,
    ...(request.maxTokens !== undefined && { maxTokens: Math.max(1, request.maxTokens - extra) }),
  };
}

/** A cautious characters-per-token estimate (small models split text finely). */
const CHARS_PER_TOKEN = 2.4;
