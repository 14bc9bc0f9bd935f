import {
  batchChatCompletionRequestSchema,
  batchConversation,
  buildBatchChatCompletion,
  buildChatCompletion,
  buildContentChunk,
  buildErrorResponse,
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
  type BatchAnswer,
  type ChatCompletionRequest,
  type CompletionIdentity,
  type OpenAiErrorBody,
} from '@echoloop/openai-compat';
import {
  ResponseFormatError,
  type ChatEngine,
  type GenerationRequest,
  type GenerationResult,
} from './chat-engine';
import { sendError, sendJson, writeHead, type Exchange } from './http-exchange';
import { QueuedJobAbortedError, type SerialQueue } from './serial-queue';

export interface ChatCompletionsDeps {
  engine: ChatEngine;
  queue: SerialQueue;
  modelName: string;
  /** The LoRA adapters also served, each under its own model name. */
  adapters: { has(name: string): boolean };
}

export async function handleChatCompletions(
  exchange: Exchange,
  body: unknown,
  deps: ChatCompletionsDeps,
): Promise<void> {
  const parsed = chatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const request = parsed.data;
  exchange.log.model = request.model;
  exchange.log.stream = request.stream === true;
  const checked = await check(request, deps);
  if ('error' in checked) return sendError(exchange, checked);
  const { promptTokens, maxTokens } = checked;
  exchange.log.promptTokens = promptTokens;
  const identity = newCompletionIdentity(request.model);
  const run = (onText: (text: string) => void) => runQueued(exchange, deps, request, maxTokens, onText);
  if (request.stream === true) return stream(exchange, request, identity, promptTokens, run);
  return answer(exchange, identity, promptTokens, run);
}

/**
 * vLLM's `POST /v1/chat/completions/batch`: every conversation is checked first (one refusal refuses the batch,
 * as in vLLM), then each is generated in turn (this server runs one generation at a time).
 */
export async function handleBatchChatCompletions(
  exchange: Exchange,
  body: unknown,
  deps: ChatCompletionsDeps,
): Promise<void> {
  const parsed = batchChatCompletionRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const batch = parsed.data;
  exchange.log.model = batch.model;
  exchange.log.stream = false;
  const conversations: { request: ChatCompletionRequest; promptTokens: number; maxTokens: number }[] = [];
  for (let index = 0; index < batch.messages.length; index++) {
    const request = batchConversation(batch, index);
    const checked = await check(request, deps);
    if ('error' in checked) return sendError(exchange, checked);
    conversations.push({ request, ...checked });
  }
  const answers: BatchAnswer[] = [];
  let completionTokens = 0;
  for (const { request, maxTokens } of conversations) {
    let result: GenerationResult | undefined;
    try {
      result = await runQueued(exchange, deps, request, maxTokens, () => undefined);
    } catch (error) {
      if (error instanceof AdapterGoneError) return sendError(exchange, modelNotFound(error.model));
      throw error;
    }
    if (!result || result.aborted) return;
    answers.push({ content: result.text, finish: result.finish });
    completionTokens += result.completionTokens;
  }
  const promptTokens = conversations.reduce((sum, c) => sum + c.promptTokens, 0);
  exchange.log.promptTokens = promptTokens;
  exchange.log.completionTokens = completionTokens;
  const usage = buildUsage(promptTokens, completionTokens);
  sendJson(exchange, 200, buildBatchChatCompletion(newCompletionIdentity(batch.model), answers, usage));
}

/** What vLLM checks before generating: the model, the context length and the response format. */
async function check(
  request: ChatCompletionRequest,
  deps: ChatCompletionsDeps,
): Promise<{ promptTokens: number; maxTokens: number } | OpenAiErrorBody> {
  if (request.model !== deps.modelName && !deps.adapters.has(request.model))
    return modelNotFound(request.model);
  const promptTokens = deps.engine.countPromptTokens(request.messages);
  const lengthError = contextLengthError(promptTokens, requestedMaxTokens(request), deps.engine.contextSize);
  if (lengthError) return lengthError;
  // Before the queue and the stream's headers, so a schema that cannot be compiled is a plain 400.
  const formatError = await prepareResponseFormat(deps.engine, request);
  if (formatError) return formatError;
  return { promptTokens, maxTokens: requestedMaxTokens(request) ?? deps.engine.contextSize - promptTokens };
}

async function prepareResponseFormat(
  engine: ChatEngine,
  request: ChatCompletionRequest,
): Promise<OpenAiErrorBody | undefined> {
  if (request.response_format == null) return undefined;
  try {
    await engine.prepareResponseFormat(request.response_format);
    return undefined;
  } catch (error) {
    if (!(error instanceof ResponseFormatError)) throw error;
    return buildErrorResponse({ status: 400, message: error.message });
  }
}

type Run = (onText: (text: string) => void) => Promise<GenerationResult | undefined>;

const modelNotFound = (model: string) =>
  buildErrorResponse({ status: 404, message: `The model \`${model}\` does not exist.`, param: 'model' });

/** The adapter a request named was unloaded while the request waited in the queue: vLLM's 404, not a 500. */
class AdapterGoneError extends Error {
  override readonly name = 'AdapterGoneError';
  constructor(readonly model: string) {
    super(`The model \`${model}\` does not exist.`);
  }
}

async function stream(
  exchange: Exchange,
  request: ChatCompletionRequest,
  identity: CompletionIdentity,
  promptTokens: number,
  run: Run,
): Promise<void> {
  const { res } = exchange;
  writeHead(exchange, 200, { ...SSE_HEADERS });
  res.flushHeaders();
  let roleSent = false;
  const sendRole = () => {
    if (!roleSent) res.write(formatSseData(buildRoleChunk(identity)));
    roleSent = true;
  };
  let result: GenerationResult | undefined;
  try {
    result = await run((text) => {
      sendRole();
      res.write(formatSseData(buildContentChunk(identity, text)));
    });
  } catch (error) {
    // Headers are out, so the error travels in the stream, as vLLM sends it.
    const message = error instanceof Error ? error.message : String(error);
    exchange.log.error = message;
    const body =
      error instanceof AdapterGoneError
        ? modelNotFound(error.model)
        : buildErrorResponse({ status: 500, message });
    res.end(formatSseData(body) + SSE_DONE);
    return;
  }
  if (!result || result.aborted) return;
  sendRole();
  res.write(formatSseData(buildContentChunk(identity, '', result.finish)));
  if (wantsUsageChunk(request)) {
    res.write(formatSseData(buildUsageChunk(identity, buildUsage(promptTokens, result.completionTokens))));
  }
  res.end(SSE_DONE);
}

async function answer(
  exchange: Exchange,
  identity: CompletionIdentity,
  promptTokens: number,
  run: Run,
): Promise<void> {
  let result: GenerationResult | undefined;
  try {
    result = await run(() => undefined);
  } catch (error) {
    if (error instanceof AdapterGoneError) return sendError(exchange, modelNotFound(error.model));
    throw error;
  }
  if (!result || result.aborted) return;
  const usage = buildUsage(promptTokens, result.completionTokens);
  sendJson(exchange, 200, buildChatCompletion(identity, result.text, result.finish, usage));
}

/** Waits for the model, generates, and logs; undefined when the client left while queued. */
async function runQueued(
  exchange: Exchange,
  deps: ChatCompletionsDeps,
  request: ChatCompletionRequest,
  maxTokens: number,
  onText: (text: string) => void,
): Promise<GenerationResult | undefined> {
  const queuedAt = performance.now();
  let firstTextAt: number | undefined;
  const generation: GenerationRequest = {
    messages: request.messages,
    maxTokens,
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(request.top_p == null ? {} : { topP: request.top_p }),
    ...(request.seed == null ? {} : { seed: request.seed }),
    ...(request.response_format == null ? {} : { responseFormat: request.response_format }),
    ...(request.model === deps.modelName ? {} : { adapter: request.model }),
    stop: stopSequences(request),
    signal: exchange.signal,
    onText: (text) => {
      if (text === '' || exchange.signal.aborted) return;
      firstTextAt ??= performance.now();
      onText(text);
    },
  };
  let startedAt = queuedAt;
  try {
    const result = await deps.queue.run(() => {
      startedAt = performance.now();
      if (generation.adapter !== undefined && !deps.adapters.has(generation.adapter)) {
        throw new AdapterGoneError(generation.adapter);
      }
      return deps.engine.generate(generation);
    }, exchange.signal);
    exchange.log.completionTokens = result.completionTokens;
    exchange.log.finishReason = result.aborted ? 'abort' : result.finish.reason;
    return result;
  } catch (error) {
    if (error instanceof QueuedJobAbortedError) return undefined;
    throw error;
  } finally {
    exchange.log.queuedMs = Math.round(startedAt - queuedAt);
    if (firstTextAt !== undefined) exchange.log.ttftMs = Math.round(firstTextAt - queuedAt);
  }
}
