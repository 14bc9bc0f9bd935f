import { SpanKind, traced } from '@echoloop/tracing';
import {
  ChatCompletionsTransport,
  type ChatCompletionText,
  type ChatRequest,
  CircuitBreaker,
  connectionError,
  type CircuitBreakerOptions,
  ModelError,
  type SideWorkLane,
} from '@echoloop/llm';

export interface JudgeClientOptions {
  /** OpenAI-compatible base URL ending in /v1. */
  baseUrl: string;
  apiKey: string;
  /** The whole request, from sending to the last byte of the answer. */
  timeoutMs: number;
  /** Sockets kept open to the judge (the calls in flight at once). */
  maxSockets: number;
  breaker: CircuitBreakerOptions;
  /** Where judge requests wait for users' replies on a shared engine to pass (the timeout starts after). */
  lane?: SideWorkLane;
}

interface CompletionBody {
  choices?: { index?: number; message?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
}

/**
 * Non-streaming chat completions for the judges, over the chat client's transport (a judge's verdict is read
 * whole, so streaming it token by token only costs). Failures surface as ModelError with the codes
 * ChatModelClient uses, behind the same circuit breaker.
 */
export class JudgeClient {
  private readonly transport: ChatCompletionsTransport;
  private readonly breaker: CircuitBreaker;

  constructor(private readonly options: JudgeClientOptions) {
    this.transport = new ChatCompletionsTransport(options, { maxSockets: options.maxSockets });
    this.breaker = new CircuitBreaker(options.breaker);
  }

  async complete(request: ChatRequest): Promise<ChatCompletionText> {
    const text = await this.post({ ...parameters(request), messages: request.messages });
    return readCompletion(text, 1)[0] as ChatCompletionText;
  }

  /**
   * Several conversations with the same parameters (model, tokens, temperature, stop, format) in one request to
   * vLLM's `/chat/completions/batch`: answer `i` is conversation `i`'s. One failure fails them all.
   */
  async completeBatch(requests: ChatRequest[]): Promise<ChatCompletionText[]> {
    const [first] = requests;
    if (!first) return [];
    const body = { ...parameters(first), messages: requests.map((r) => r.messages) };
    const text = await this.post(body, requests.length);
    return readCompletion(text, requests.length);
  }

  /** One request: a single conversation, or `batchOf` conversations on vLLM's batch route; a client span. */
  private post(body: { model?: string; [field: string]: unknown }, batchOf?: number): Promise<string> {
    const { lane } = this.options;
    const attributes = {
      'gen_ai.operation.name': 'chat',
      ...(body.model && { 'gen_ai.request.model': body.model }),
      'echoloop.judge.conversations': batchOf ?? 1,
    };
    return traced('judge chat', { kind: SpanKind.CLIENT, attributes }, () =>
      lane
        ? lane.run((preempted) => this.send(body, batchOf, preempted), batchOf ?? 1)
        : this.send(body, batchOf),
    );
  }

  private async send(body: object, batchOf?: number, preempted?: AbortSignal): Promise<string> {
    const lease = this.breaker.acquire();
    if (!lease) throw new ModelError('model_unavailable', 'the judge endpoint is failing', true);
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const signal = preempted ? AbortSignal.any([deadline, preempted]) : deadline;
    try {
      const text = await this.transport.complete(body, signal, { batch: batchOf !== undefined });
      lease.succeed();
      return text;
    } catch (error) {
      // Stepping aside for a user's reply says nothing about the judge's health.
      if (preempted?.aborted) throw error;
      const failure = deadline.aborted
        ? new ModelError('model_timeout', `no answer within ${this.options.timeoutMs} ms`, true)
        : connectionError(error);
      if (failure.code === 'model_rejected' || failure.code === 'model_not_served') lease.release();
      else lease.fail();
      throw failure;
    } finally {
      lease.release();
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** What a batch shares: everything but the messages. */
function parameters(request: ChatRequest) {
  return {
    model: request.model,
    stream: false,
    ...(request.maxTokens !== undefined && { max_tokens: request.maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.stop?.length && { stop: request.stop }),
    ...(request.responseFormat && { response_format: request.responseFormat }),
    ...(request.priority && { priority: request.priority }),
    ...(request.pattern && { structured_outputs: { regex: request.pattern } }),
  };
}

/** The answers in conversation order; a batch's usage is the whole batch's, so none is given per answer. */
function readCompletion(text: string, conversations: number): ChatCompletionText[] {
  let body: CompletionBody;
  try {
    body = JSON.parse(text) as CompletionBody;
  } catch {
    throw new ModelError('model_unavailable', 'the judge answered with something other than JSON', true);
  }
  const choices = body.choices ?? [];
  if (choices.length !== conversations) {
    throw new ModelError(
      'model_unavailable',
      `the judge answered ${choices.length} choices for ${conversations} conversations`,
      true,
    );
  }
  const ordered = [...choices].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const usage =
    conversations === 1 && body.usage
      ? { promptTokens: body.usage.prompt_tokens, completionTokens: body.usage.completion_tokens }
      : null;
  return ordered.map((choice) => ({
    text: choice.message?.content ?? '',
    finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
    usage,
  }));
}
