import type { ChatCompletionRequest } from '@echoloop/openai-compat';

/** Decides the full text the fake model "generates" for a request. */
export type ReplyScript = (request: ChatCompletionRequest) => string;

/** What `reply` options accept: a script, a fixed text, or a queue of texts used one per request. */
export type ReplySource = ReplyScript | string | readonly string[];

export class ReplyQueueEmptyError extends Error {
  constructor() {
    super('fake vLLM: the reply queue is empty');
  }
}

export function replyWith(text: string): ReplyScript {
  return () => text;
}

/** Answers requests in order; a request after the last reply fails with a 500. */
export function replyQueue(texts: readonly string[]): ReplyScript {
  const remaining = [...texts];
  return () => {
    const next = remaining.shift();
    if (next === undefined) throw new ReplyQueueEmptyError();
    return next;
  };
}

/** Replies with `JSON.stringify(value)`, e.g. a judge's verdict. */
export function jsonReply(value: unknown): string {
  return JSON.stringify(value);
}

export interface ReplyRule {
  /** Every condition given must hold. */
  when: {
    lastUserIncludes?: string;
    systemIncludes?: string;
    anyMessageIncludes?: string;
    model?: string;
  };
  /** A string is sent as is; anything else is sent as JSON. */
  reply: unknown;
}

/** Picks the first matching rule, else `fallback` (a 500 when there is none). */
export function replyByRules(rules: readonly ReplyRule[], fallback?: ReplySource): ReplyScript {
  const otherwise = fallback === undefined ? undefined : toReplyScript(fallback);
  return (request) => {
    const rule = rules.find((candidate) => ruleMatches(candidate, request));
    if (rule) return typeof rule.reply === 'string' ? rule.reply : jsonReply(rule.reply);
    if (otherwise) return otherwise(request);
    throw new Error(`fake vLLM: no reply rule matches the request to model ${request.model}`);
  };
}

export function toReplyScript(source: ReplySource): ReplyScript {
  if (typeof source === 'function') return source;
  if (typeof source === 'string') return replyWith(source);
  return replyQueue(source);
}

function ruleMatches({ when }: ReplyRule, request: ChatCompletionRequest): boolean {
  const { messages } = request;
  const lastUser = messages.findLast((message) => message.role === 'user')?.content ?? '';
  const system = messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n');
  return (
    (when.model === undefined || request.model === when.model) &&
    (when.lastUserIncludes === undefined || lastUser.includes(when.lastUserIncludes)) &&
    (when.systemIncludes === undefined || system.includes(when.systemIncludes)) &&
    (when.anyMessageIncludes === undefined ||
      messages.some((message) => message.content.includes(when.anyMessageIncludes ?? '')))
  );
}
