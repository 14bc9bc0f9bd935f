import {
  type ChatCompletionText,
  type ChatRequest,
  CircuitBreaker,
  connectionError,
  type CircuitBreakerOptions,
  ModelError,
  modelErrorForStatus,
} from '@echoloop/llm';
import http from 'node:http';
import https from 'node:https';

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
 * Non-streaming chat completions for the judges: one plain JSON request and answer over kept-alive sockets (a
 * judge's verdict is read whole, so streaming it token by token only costs). Failures surface as ModelError with
 * the codes ChatModelClient uses, behind the same circuit breaker.
 */
export class JudgeClient {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly breaker: CircuitBreaker;

  constructor(private readonly options: JudgeClientOptions) {
    this.url = new URL(`${options.baseUrl.replace(/\/$/, '')}/chat/completions`);
    const Agent = this.url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets });
    this.breaker = new CircuitBreaker(options.breaker);
  }

  async complete(request: ChatRequest): Promise<ChatCompletionText> {
    const lease = this.breaker.acquire();
    if (!lease) throw new ModelError('model_unavailable', 'the judge endpoint is failing', true);
    try {
      const { status, text } = await this.post(
        JSON.stringify({
          model: request.model,
          messages: request.messages,
          stream: false,
          ...(request.maxTokens !== undefined && { max_tokens: request.maxTokens }),
          ...(request.temperature !== undefined && { temperature: request.temperature }),
          ...(request.stop?.length && { stop: request.stop }),
          ...(request.responseFormat && { response_format: request.responseFormat }),
        }),
      );
      if (status >= 400) throw modelErrorForStatus(status, text);
      const completion = readCompletion(text);
      lease.succeed();
      return completion;
    } catch (error) {
      const failure = connectionError(error);
      if (failure.code === 'model_rejected') lease.release();
      else lease.fail();
      throw failure;
    } finally {
      lease.release();
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: string): Promise<{ status: number; text: string }> {
    const send = this.url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            authorization: `Bearer ${this.options.apiKey}`,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', reject);
        },
      );
      req.setTimeout(this.options.timeoutMs, () =>
        req.destroy(new ModelError('model_timeout', `no answer within ${this.options.timeoutMs} ms`, true)),
      );
      req.on('error', reject);
      req.end(body);
    });
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
