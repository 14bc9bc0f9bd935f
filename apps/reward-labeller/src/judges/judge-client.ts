import {
  ChatCompletionsTransport,
  type ChatCompletionText,
  type ChatRequest,
  CircuitBreaker,
  connectionError,
  type CircuitBreakerOptions,
  ModelError,
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
}

interface CompletionBody {
  choices?: { message?: { content?: string | null }; finish_reason?: string | null }[];
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
    const lease = this.breaker.acquire();
    if (!lease) throw new ModelError('model_unavailable', 'the judge endpoint is failing', true);
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    try {
      const text = await this.transport.complete(
        {
          model: request.model,
          messages: request.messages,
          stream: false,
          ...(request.maxTokens !== undefined && { max_tokens: request.maxTokens }),
          ...(request.temperature !== undefined && { temperature: request.temperature }),
          ...(request.stop?.length && { stop: request.stop }),
          ...(request.responseFormat && { response_format: request.responseFormat }),
        },
        deadline,
      );
      const completion = readCompletion(text);
      lease.succeed();
      return completion;
    } catch (error) {
      const failure = deadline.aborted
        ? new ModelError('model_timeout', `no answer within ${this.options.timeoutMs} ms`, true)
        : connectionError(error);
      if (failure.code === 'model_rejected') lease.release();
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

function readCompletion(text: string): ChatCompletionText {
  let body: CompletionBody;
  try {
    body = JSON.parse(text) as CompletionBody;
  } catch {
    throw new ModelError('model_unavailable', 'the judge answered with something other than JSON', true);
  }
  const choice = body.choices?.[0];
  if (!choice) throw new ModelError('model_unavailable', 'the judge answered without a choice', true);
  return {
    text: choice.message?.content ?? '',
    finishReason: choice.finish_reason === 'length' ? 'length' : 'stop',
    usage: body.usage
      ? { promptTokens: body.usage.prompt_tokens, completionTokens: body.usage.completion_tokens }
      : null,
  };
}
