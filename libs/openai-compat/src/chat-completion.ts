import type { CompletionIdentity } from './completion-identity';
import type { Finish, FinishReason } from './finish';
import { SYSTEM_FINGERPRINT, type CompletionUsage } from './usage';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      message: CompletionMessage;
      logprobs: null;
      finish_reason: FinishReason;
      stop_reason: string | null;
      token_ids: null;
      routed_experts: null;
    },
  ];
  usage: CompletionUsage;
  service_tier: null;
  system_fingerprint: string;
  prompt_logprobs: null;
  prompt_token_ids: null;
  prompt_text: null;
  kv_transfer_params: null;
  ec_transfer_params: null;
  metrics: null;
}

/** The assistant message of a whole completion, every field vLLM 0.32 writes (no `tool_calls` without tools). */
export interface CompletionMessage {
  role: 'assistant';
  content: string;
  refusal: null;
  annotations: null;
  audio: null;
  function_call: null;
  reasoning: null;
}

/** The fields vLLM adds around a whole completion's choices, all null or fixed when nothing asks for them. */
function completionExtras(usage: CompletionUsage) {
  return {
    usage: { ...usage, prompt_tokens_details: null, completion_tokens_details: null },
    service_tier: null,
    system_fingerprint: SYSTEM_FINGERPRINT,
    prompt_logprobs: null,
    prompt_token_ids: null,
    prompt_text: null,
    kv_transfer_params: null,
    ec_transfer_params: null,
    metrics: null,
  };
}

/** The non-streaming `POST /v1/chat/completions` response. */
export function buildChatCompletion(
  identity: CompletionIdentity,
  content: string,
  finish: Finish,
  usage: CompletionUsage,
): ChatCompletion {
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [completionChoice(0, content, finish)],
    ...completionExtras(usage),
  };
}

/** One answer of a batch: what a single request's completion would have held. */
export interface BatchAnswer {
  content: string;
  finish: Finish;
}

/**
 * The `POST /v1/chat/completions/batch` response (vLLM): one choice per conversation, `index` its place in the
 * request, and the usage of the whole batch.
 */
export function buildBatchChatCompletion(
  identity: CompletionIdentity,
  answers: BatchAnswer[],
  usage: CompletionUsage,
) {
  return {
    id: identity.id,
    object: 'chat.completion' as const,
    created: identity.created,
    model: identity.model,
    choices: answers.map(({ content, finish }, index) => completionChoice(index, content, finish)),
    ...completionExtras(usage),
  };
}

/** One choice of a non-streaming completion, as vLLM writes it. */
function completionChoice<I extends number>(index: I, content: string, finish: Finish) {
  return {
    index,
    message: {
      role: 'assistant' as const,
      content,
      refusal: null,
      annotations: null,
      audio: null,
      function_call: null,
      reasoning: null,
    },
    logprobs: null,
    finish_reason: finish.reason,
    stop_reason: finish.stopReason ?? null,
    token_ids: null,
    routed_experts: null,
  };
}
