import { type ChatCompletionText, type ChatRequest, ModelError } from '@echoloop/llm';
import type { JudgeClient } from './judge-client';

interface Pending {
  request: ChatRequest;
  resolve: (answer: ChatCompletionText) => void;
  reject: (error: unknown) => void;
}

/**
 * Judge calls made in the same turn of the event loop, with the same parameters, go to the judge as one request
 * to vLLM's `/chat/completions/batch` (up to `maxBatch` conversations each): a Kafka batch's judgements cost a
 * few HTTP requests instead of two per turn. Each call still gets its own outcome: a batch that fails (a timeout,
 * a refusal, an outage) is sent again one call at a time, so one slow or bad conversation fails only itself. A
 * judge without the batch route (404/405) is called one by one from then on.
 */
export class JudgeBatcher {
  private queued = new Map<string, Pending[]>();
  private flushing = false;
  private batchRoute: boolean;

  constructor(
    private readonly client: JudgeClient,
    private readonly maxBatch: number,
    private readonly logger: { warn(context: object, message: string): void },
  ) {
    this.batchRoute = maxBatch > 1;
  }

  complete(request: ChatRequest): Promise<ChatCompletionText> {
    if (!this.batchRoute) return this.client.complete(request);
    return new Promise((resolve, reject) => {
      const key = batchKey(request);
      const group = this.queued.get(key);
      if (group) group.push({ request, resolve, reject });
      else this.queued.set(key, [{ request, resolve, reject }]);
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const groups = [...this.queued.values()];
    this.queued = new Map();
    this.flushing = false;
    for (const group of groups) {
      for (let start = 0; start < group.length; start += this.maxBatch) {
        void this.send(group.slice(start, start + this.maxBatch));
      }
    }
  }

  private async send(calls: Pending[]): Promise<void> {
    if (calls.length === 1 || !this.batchRoute) return this.oneByOne(calls);
    try {
      const answers = await this.client.completeBatch(calls.map((c) => c.request));
      calls.forEach((call, i) => call.resolve(answers[i] as ChatCompletionText));
    } catch (error) {
      if (error instanceof ModelError && (error.status === 404 || error.status === 405) && this.batchRoute) {
        this.batchRoute = false;
        this.logger.warn(
          { status: error.status },
          'the judge has no /chat/completions/batch route; calling it one conversation at a time',
        );
      }
      await this.oneByOne(calls);
    }
  }

  private async oneByOne(calls: Pending[]): Promise<void> {
    await Promise.all(
      calls.map(async (call) => {
        try {
          call.resolve(await this.client.complete(call.request));
        } catch (error) {
          call.reject(error);
        }
      }),
    );
  }
}

/** Calls batch together when everything but their messages is the same. */
function batchKey({ model, maxTokens, temperature, stop, responseFormat, pattern }: ChatRequest): string {
  return JSON.stringify([model, maxTokens, temperature, stop, responseFormat, pattern]);
}
