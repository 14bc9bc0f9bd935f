import type { ChatMessage } from '@echoloop/vocabulary';
import type { FinishReason, ResponseFormat } from '@echoloop/openai-compat';
import { ChatCompletionsTransport, type ModelEndpoint } from './chat-completions-transport';
import { CircuitBreaker, type BreakerLease, type CircuitBreakerOptions } from './circuit-breaker';
import { connectionError, ModelError } from './model-errors';
import type { SideWorkLanes } from './side-work-lane';

export interface ChatRequest {
  /** Served model name, or a LoRA adapter's name on vLLM. */
  model: string;
  messages: ChatMessage[];
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  /** Structured output (vLLM guided decoding): the reply is constrained to JSON, or to this JSON Schema. */
  responseFormat?: ResponseFormat;
  /** vLLM's scheduling priority (see MODEL_PRIORITY): lower is served first. A user's reply leaves it unset. */
  priority?: number;
  /**
   * A regular expression the whole answer must match (vLLM structured outputs, `structured_outputs.regex`): a judge
   * gets its short rationale and a readable verdict instead of running to its token limit.
   */
  pattern?: string;
  /** vLLM's per-request sampling seed: the same request samples the same answer. */
  seed?: number;
}

/**
 * Who waits for a model call, in vLLM's priority order (lower first; it applies with `--scheduling-policy priority`
 * and is ignored under first-come-first-served): a user's reply first, then the work of their conversation
 * (director, persona extraction, summaries), then scoring (judges, simulated users, gate replies).
 */
export const MODEL_PRIORITY = { reply: 0, conversation: 1, scoring: 2 } as const;

/** A whole reply, collected from the stream. */
export interface ChatCompletionText {
  text: string;
  finishReason: FinishReason;
  usage: { promptTokens: number; completionTokens: number } | null;
}

export type ChatStreamEvent =
  | { type: 'delta'; text: string }
  | {
      type: 'done';
      finishReason: FinishReason;
      usage: { promptTokens: number; completionTokens: number } | null;
      endpoint: string;
    };

export interface ChatModelClientOptions {
  /** Time allowed until the first content token. */
  firstTokenTimeoutMs: number;
  /** Time allowed between two chunks once streaming. */
  idleTimeoutMs: number;
  /** Extra attempts (on other endpoints when there are several) before the first token. */
  retries: number;
  breaker: CircuitBreakerOptions;
  /** How long an idle connection to an endpoint is kept (TransportOptions.keepAliveMs). */
  keepAliveMs?: number;
  /** Where requests with a priority (background work) wait for users' replies to pass; their timeouts start after. */
  sideWork?: SideWorkLanes;
}

export const DEFAULT_CLIENT_OPTIONS: ChatModelClientOptions = {
  firstTokenTimeoutMs: 15_000,
  idleTimeoutMs: 10_000,
  retries: 1,
  breaker: { failureThreshold: 5, cooldownMs: 10_000 },
};

interface Upstream {
  endpoint: ModelEndpoint;
  transport: ChatCompletionsTransport;
  breaker: CircuitBreaker;
}

/**
 * Streams chat completions from one or more OpenAI-compatible endpoints serving the same checkpoint.
 * Retries (rotating endpoints) only before the first token: after it, the user has seen text and a retry would
 * repeat it. Every failure surfaces as a ModelError saying whether the user can retry.
 */
export class ChatModelClient {
  private readonly upstreams: Upstream[];
  private next = 0;

  constructor(
    endpoints: readonly ModelEndpoint[],
    private readonly options: ChatModelClientOptions = DEFAULT_CLIENT_OPTIONS,
  ) {
    if (endpoints.length === 0) throw new Error('ChatModelClient needs at least one endpoint');
    this.upstreams = endpoints.map((endpoint) => ({
      endpoint,
      transport: new ChatCompletionsTransport(
        endpoint,
        options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs },
      ),
      breaker: new CircuitBreaker(options.breaker),
    }));
  }

  stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
    return this.streamFrom(request, signal, true);
  }

  /**
   * The whole reply at once, for callers that need all of it (summaries, extractions, judges). Background work (a
   * request with a priority) waits in its engine's side-work lane, and when a reply preempts it, starts over.
   */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatCompletionText> {
    const lane = request.priority ? this.laneOf(this.upstreams[this.next]) : undefined;
    if (!lane) return this.collect(request, signal);
    return lane.run((preempted) =>
      this.collect(request, signal ? AbortSignal.any([signal, preempted]) : preempted),
    );
  }

  private async collect(request: ChatRequest, signal?: AbortSignal): Promise<ChatCompletionText> {
    let text = '';
    for await (const event of this.streamFrom(request, signal, false)) {
      if (event.type === 'delta') text += event.text;
      else return { text, finishReason: event.finishReason, usage: event.usage };
    }
    throw new ModelError('model_unavailable', 'stream ended without a finish reason', true);
  }

  /** `holdLane`: background work takes its lane per attempt (a caller reading the stream cannot start over). */
  private async *streamFrom(
    request: ChatRequest,
    signal: AbortSignal | undefined,
    holdLane: boolean,
  ): AsyncGenerator<ChatStreamEvent> {
    let lastError: ModelError | undefined;
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      const picked = this.pick();
      if (!picked)
        throw lastError ?? new ModelError('model_unavailable', 'every model endpoint is failing', true);
      const { upstream, lease } = picked;
      let delivered = false;
      try {
        for await (const event of this.attempt(upstream, request, signal, holdLane)) {
          delivered ||= event.type === 'delta';
          // Settled before the caller sees it: a caller that stops at `done` never resumes this generator.
          if (event.type === 'done') lease.succeed();
          yield event;
        }
        return;
      } catch (error) {
        const failure = connectionError(error);
        // The endpoint answered: it is healthy, whatever it said (a 404 only means it lacks the adapter now).
        const answered = ['cancelled', 'model_rejected', 'model_not_served'].includes(failure.code);
        if (answered) lease.release();
        else lease.fail();
        if (failure.code === 'cancelled') throw failure;
        if (delivered) throw new ModelError('model_stream_broken', failure.message, true, failure.status);
        if (!failure.retryable) throw failure;
        lastError = failure;
      } finally {
        // Every path not settled above (the caller broke out of its loop, or threw inside it) frees the trial.
        lease.release();
      }
    }
    throw lastError ?? new ModelError('model_unavailable', 'no attempt was made', true);
  }

  /** Round-robin over endpoints whose circuit lets a call through. */
  private pick(): { upstream: Upstream; lease: BreakerLease } | undefined {
    for (let i = 0; i < this.upstreams.length; i++) {
      const upstream = this.upstreams[(this.next + i) % this.upstreams.length];
      const lease = upstream?.breaker.acquire();
      if (upstream && lease) {
        this.next = (this.next + i + 1) % this.upstreams.length;
        return { upstream, lease };
      }
    }
    return undefined;
  }

  private laneOf(upstream: Upstream | undefined) {
    return upstream && this.options.sideWork?.for(upstream.endpoint.baseUrl);
  }

  private async *attempt(
    upstream: Upstream,
    request: ChatRequest,
    signal: AbortSignal | undefined,
    holdLane: boolean,
  ) {
    const leave = holdLane && request.priority ? await this.laneOf(upstream)?.enter() : undefined;
    try {
      yield* this.send(upstream, request, signal);
    } finally {
      leave?.();
    }
  }

  private async *send(upstream: Upstream, request: ChatRequest, signal?: AbortSignal) {
    const controller = new AbortController();
    let timeout: ModelError | undefined;
    const abortWith = (error: ModelError) => {
      timeout = error;
      controller.abort();
    };
    const onCallerAbort = () => controller.abort();
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    let timer = setTimeout(
      () =>
        abortWith(
          new ModelError(
            'model_timeout',
            `no first token within ${this.options.firstTokenTimeoutMs} ms`,
            true,
          ),
        ),
      this.options.firstTokenTimeoutMs,
    );
    let seenToken = false;
    let idle: NodeJS.Timeout | undefined;
    try {
      if (signal?.aborted) throw new ModelError('cancelled', 'cancelled', false);
      const body = {
        model: request.model,
        messages: request.messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(request.maxTokens !== undefined && { max_tokens: request.maxTokens }),
        ...(request.temperature !== undefined && { temperature: request.temperature }),
        ...(request.topP !== undefined && { top_p: request.topP }),
        ...(request.stop?.length && { stop: request.stop }),
        ...(request.responseFormat && { response_format: request.responseFormat }),
        ...(request.priority && { priority: request.priority }),
        ...(request.pattern && { structured_outputs: { regex: request.pattern } }),
        ...(request.seed !== undefined && { seed: request.seed }),
      };
      let finishReason: FinishReason = 'stop';
      let finished = false;
      let usage: { promptTokens: number; completionTokens: number } | null = null;
      for await (const data of upstream.transport.stream(body, controller.signal)) {
        const chunk = readChunk(data);
        const choice = chunk.choices?.[0];
        const text = choice?.delta?.content;
        if (text) {
          seenToken = true;
          yield { type: 'delta', text } as const;
        }
        // Once tokens flow, one idle timer re-armed on every chunk (refresh allocates nothing).
        if (idle) idle.refresh();
        else if (seenToken) {
          clearTimeout(timer);
          timer = idle = setTimeout(
            () =>
              abortWith(
                new ModelError('model_timeout', `stream idle for ${this.options.idleTimeoutMs} ms`, true),
              ),
            this.options.idleTimeoutMs,
          );
        }
        if (choice?.finish_reason) {
          finished = true;
          if (choice.finish_reason === 'length') finishReason = 'length';
        }
        if (chunk.usage)
          usage = {
            promptTokens: chunk.usage.prompt_tokens,
            completionTokens: chunk.usage.completion_tokens,
          };
      }
      // A stream can end quietly on abort, so a timeout or a cancel must be checked for here.
      if (controller.signal.aborted) throw timeout ?? new ModelError('cancelled', 'cancelled', false);
      if (!finished) throw new ModelError('model_unavailable', 'stream ended without a finish reason', true);
      yield { type: 'done', finishReason, usage, endpoint: upstream.endpoint.baseUrl } as const;
    } catch (error) {
      if (error instanceof ModelError) throw error;
      if (timeout) throw timeout;
      if (signal?.aborted) throw new ModelError('cancelled', 'cancelled', false);
      throw error;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
      // Ends the request if the caller stopped reading early. A reason given here saves the DOMException (with
      // its stack trace) that abort() would otherwise build on every turn.
      controller.abort(STREAM_LEFT);
    }
  }
}

/** Why a stream's request is aborted once its reader is gone: nothing reads it, so one shared value serves. */
const STREAM_LEFT = new ModelError('cancelled', 'the reader left the stream', false);

/** A streamed chunk as any OpenAI-compatible server may send it (fields absent where ours always has them). */
interface StreamedChunk {
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
  error?: { message?: unknown };
}

/** One streamed chunk; an error sent mid-stream (vLLM does, as `{"error": {...}}`) fails the stream. */
function readChunk(data: string): StreamedChunk {
  let parsed: StreamedChunk;
  try {
    parsed = JSON.parse(data) as StreamedChunk;
  } catch {
    throw new ModelError('model_unavailable', 'the model server sent a chunk that is not JSON', true);
  }
  const failure = parsed.error;
  if (failure) {
    const message = typeof failure.message === 'string' ? failure.message : 'the model server failed';
    throw new ModelError('model_unavailable', message, true);
  }
  return parsed;
}
