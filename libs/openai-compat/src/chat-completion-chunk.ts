import type { CompletionIdentity } from './completion-identity';
import type { Finish, FinishReason } from './finish';
import { SYSTEM_FINGERPRINT, type CompletionUsage } from './usage';

export interface ChatCompletionChunkChoice {
  index: 0;
  delta: { role?: 'assistant'; content: string };
  logprobs: null;
  finish_reason: FinishReason | null;
  stop_reason?: string | null;
  token_ids?: null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChatCompletionChunkChoice[];
  usage?: CompletionUsage;
  /** On the first chunk only (vLLM 0.32). */
  prompt_token_ids?: null;
  prompt_text?: null;
  /** On the usage chunk only. */
  system_fingerprint?: string;
}

function chunk(identity: CompletionIdentity, choices: ChatCompletionChunkChoice[]): ChatCompletionChunk {
  return {
    id: identity.id,
    object: 'chat.completion.chunk',
    created: identity.created,
    model: identity.model,
    choices,
  };
}

/** First chunk of every stream: announces the assistant role with empty content, as vLLM does. */
export function buildRoleChunk(identity: CompletionIdentity): ChatCompletionChunk {
  return {
    ...chunk(identity, [
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]),
    prompt_token_ids: null,
    prompt_text: null,
  };
}

/** A content delta; pass `finish` on the last one (its content may be empty). */
export function buildContentChunk(
  identity: CompletionIdentity,
  content: string,
  finish?: Finish,
): ChatCompletionChunk {
  if (finish === undefined) {
    return chunk(identity, [
      { index: 0, delta: { content }, logprobs: null, finish_reason: null, token_ids: null },
    ]);
  }
  return chunk(identity, [
    {
      index: 0,
      delta: { content },
      logprobs: null,
      finish_reason: finish.reason,
      stop_reason: finish.stopReason ?? null,
      token_ids: null,
    },
  ]);
}

/** Sent after the last content chunk, only when `stream_options.include_usage` asks for it. */
export function buildUsageChunk(identity: CompletionIdentity, usage: CompletionUsage): ChatCompletionChunk {
  return { ...chunk(identity, []), usage, system_fingerprint: SYSTEM_FINGERPRINT };
}
