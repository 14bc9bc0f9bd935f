import type { CompletionIdentity } from './completion-identity';
import type { Finish, FinishReason } from './finish';
import type { CompletionUsage } from './usage';

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      message: { role: 'assistant'; content: string; tool_calls: [] };
      logprobs: null;
      finish_reason: FinishReason;
      stop_reason: string | null;
    },
  ];
  usage: CompletionUsage;
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
    usage,
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
    usage,
  };
}

/** One choice of a non-streaming completion, as vLLM writes it. */
function completionChoice<I extends number>(index: I, content: string, finish: Finish) {
  return {
    index,
    message: { role: 'assistant' as const, content, tool_calls: [] as [] },
    logprobs: null,
    finish_reason: finish.reason,
    stop_reason: finish.stopReason ?? null,
  };
}
