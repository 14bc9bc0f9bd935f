import {
  batchChatCompletionRequestSchema,
  batchConversation,
  buildBatchChatCompletion,
  buildChatCompletion,
  buildContentChunk,
  buildErrorResponse,
  modelNotFoundError,
  buildRoleChunk,
  buildUsage,
  buildUsageChunk,
  chatCompletionRequestSchema,
  contextLengthError,
  formatSseData,
  newCompletionIdentity,
  requestedMaxTokens,
  SSE_DONE,
  SSE_HEADERS,
  stopSequences,
  validationErrorResponse,
  wantsUsageChunk,
  type ChatCompletionRequest,
  type CompletionIdentity,
  type CompletionUsage,
  type OpenAiErrorBody,
} from '@echoloop/openai-compat';
import { planCompletion, type CompletionPlan } from './completion-plan';
import type { FakeVllmFaults } from './fake-vllm-types';
import type { FakeVllmState } from './fake-vllm-state';
import { sendError, sendJson, untilAborted, writeChunk, writeHead, type Exchange } from './http-exchange';
import { emitPieces, type EmitOutcome } from './token-emitter';
import { countPromptTokens } from './word-piece-tokenizer';

export async function handleChatCompletion(
  exchange: Exchange,
  body: unknown,
  state: FakeVllmState,
): Promise<void> {
  const parsed = chatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const request = parsed.data;
  const generation = prepare(exchange, request, state);
  if ('error' in generation) return sendError(exchange, generation);
  if (request.stream === true) return streamCompletion(exchange, request, generation);
  return answerCompletion(exchange, generation);
}

/**
 * vLLM's `POST /v1/chat/completions/batch`: each conversation is checked and answered as a single request would
 * be, concurrently; any refusal refuses the whole batch, as vLLM does.
 */
export async function handleBatchChatCompletion(
  exchange: Exchange,
  body: unknown,
  state: FakeVllmState,
): Promise<void> {
  const parsed = batchChatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const batch = parsed.data;
  const generations: Generation[] = [];
  for (let index = 0; index < batch.messages.length; index++) {
    const generation = prepare(exchange, batchConversation(batch, index), state);
    if ('error' in generation) return sendError(exchange, generation);
    generations.push(generation);
  }
  const outcomes = await Promise.all(
    generations.map((g) => emitPieces(g.plan.pieces, g.faults, exchange.signal, async () => undefined)),
  );
  const abnormal = outcomes.find((outcome) => outcome !== 'done');
  if (abnormal) return endAbnormally(exchange, abnormal);
  const usage = generations.reduce(
    (sum, g) =>
      buildUsage(sum.prompt_tokens + g.promptTokens, sum.completion_tokens + g.plan.completionTokens),
    buildUsage(0, 0),
  );
  const answers = generations.map((g) => ({ content: g.plan.pieces.join(''), finish: g.plan.finish }));
  sendJson(exchange, 200, buildBatchChatCompletion(newCompletionIdentity(batch.model), answers, usage));
}

/** What one request will generate, or the error vLLM would answer it with. */
function prepare(
  exchange: Exchange,
  request: ChatCompletionRequest,
  state: FakeVllmState,
): Generation | OpenAiErrorBody {
  if (!state.servesModel(request.model)) {
    return modelNotFoundError(request.model, [state.model]);
  }
  const faults = state.faultsFor(request);
  if (faults.failWith) {
    const { status, message, type } = faults.failWith;
    exchange.record.fault = 'failWith';
    return buildErrorResponse({ status, message, type });
  }
  const promptTokens = countPromptTokens(request.messages);
  const lengthError = contextLengthError(promptTokens, requestedMaxTokens(request), state.maxModelLen);
  if (lengthError) return lengthError;
  let reply: string;
  try {
    reply = state.reply(request);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return buildErrorResponse({ status: 500, message });
  }
  const maxTokens = requestedMaxTokens(request) ?? state.maxModelLen - promptTokens;
  const plan = planCompletion(reply, maxTokens, faults.ignoreStop ? [] : stopSequences(request));
  return { identity: newCompletionIdentity(request.model), plan, promptTokens, faults };
}

interface Generation {
  identity: CompletionIdentity;
  plan: CompletionPlan;
  promptTokens: number;
  faults: FakeVllmFaults;
}

async function streamCompletion(
  exchange: Exchange,
  request: ChatCompletionRequest,
  { identity, plan, promptTokens, faults }: Generation,
): Promise<void> {
  writeHead(exchange, 200, { ...SSE_HEADERS });
  exchange.res.flushHeaders();
  const lastIndex = plan.pieces.length - 1;
  const outcome = await emitPieces(plan.pieces, faults, exchange.signal, async (piece, index) => {
    if (index === 0) await writeChunk(exchange, formatSseData(buildRoleChunk(identity)));
    const finish = index === lastIndex ? plan.finish : undefined;
    await writeChunk(exchange, formatSseData(buildContentChunk(identity, piece, finish)));
  });
  if (outcome !== 'done') return endAbnormally(exchange, outcome);
  if (wantsUsageChunk(request)) {
    await writeChunk(exchange, formatSseData(buildUsageChunk(identity, usageOf(plan, promptTokens))));
  }
  exchange.res.end(SSE_DONE);
}

async function answerCompletion(
  exchange: Exchange,
  { identity, plan, promptTokens, faults }: Generation,
): Promise<void> {
  const outcome = await emitPieces(plan.pieces, faults, exchange.signal, async () => undefined);
  if (outcome !== 'done') return endAbnormally(exchange, outcome);
  const content = plan.pieces.join('');
  sendJson(exchange, 200, buildChatCompletion(identity, content, plan.finish, usageOf(plan, promptTokens)));
}

async function endAbnormally(exchange: Exchange, outcome: Exclude<EmitOutcome, 'done'>): Promise<void> {
  if (outcome === 'failed') {
    exchange.record.fault = 'failAfterTokens';
    // Flush what was written, then close the socket without finishing the response: the client
    // receives the tokens sent so far and then a broken stream.
    exchange.res.socket?.destroySoon();
  } else if (outcome === 'stalled') {
    exchange.record.fault = 'stallAfterTokens';
    await untilAborted(exchange.signal);
  }
}

function usageOf(plan: CompletionPlan, promptTokens: number): CompletionUsage {
  return buildUsage(promptTokens, plan.completionTokens);
}
