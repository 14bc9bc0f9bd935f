import type { ChatMessage } from '@echoloop/vocabulary';
import {
  completeStructured,
  ModelError,
  MODEL_PRIORITY,
  type Parsed,
  Semaphore,
  SideWorkLanes,
} from '@echoloop/llm';
import { backoffDelay, MetricsService, sideWorkMetrics } from '@echoloop/platform';
import type { RewardComponent } from '@echoloop/rewards';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter, Histogram } from 'prom-client';
import type { LabellerEnv } from '../env';
import { LABELLER_ENV } from '../tokens';
import { JudgeBatcher } from './judge-batcher';
import { JudgeClient } from './judge-client';
import { JudgeUnavailableError } from './judge-unavailable.error';

export interface JudgeCall<T> {
  component: RewardComponent;
  /**
   * The prompt, built once the call has its slot: a batch queues thousands of calls at once, and prompts built
   * up front would all stay in memory (and be copied by every garbage collection) until their turn comes.
   */
  messages: () => ChatMessage[];
  parse: (text: string) => Parsed<T>;
  /** The line appended to the request when the first answer could not be parsed. */
  correction: (detail: string) => string;
  /** A regular expression of the answer `parse` reads (sent when JUDGE_CONSTRAIN_ANSWERS is on). */
  pattern?: string;
}

export type JudgeOutcome<T> =
  | { ok: true; value: T; raw: string; model: string }
  | { ok: false; error: string; raw: string | null; model: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8_000;

/**
 * Calls judge models: bounded concurrency, calls made together sent as one batch (JudgeBatcher), a timeout per
 * call, retries with backoff for transient failures only, one corrective retry for an answer that does not parse.
 * A judge that times out, rejects the request or never answers in the expected form yields a failure to record on
 * the turn; an unreachable judge is an outage and throws JudgeUnavailableError, so the turn waits instead of
 * being labelled as failed.
 */
@Injectable()
export class JudgeRunner implements OnApplicationShutdown {
  readonly model: string;
  private readonly client: JudgeClient;
  private readonly batcher: JudgeBatcher;
  private readonly slots: Semaphore;
  private readonly latency: Histogram<'component'>;
  private readonly failures: Counter<'component' | 'kind'>;

  constructor(
    @Inject(LABELLER_ENV) private readonly env: LabellerEnv,
    metrics: MetricsService,
    logger: PinoLogger,
  ) {
    this.model = env.JUDGE_MODEL;
    this.client = new JudgeClient({
      baseUrl: env.JUDGE_BASE_URL,
      apiKey: env.JUDGE_API_KEY,
      timeoutMs: env.JUDGE_TIMEOUT_MS,
      maxSockets: env.JUDGE_CONCURRENCY,
      breaker: { failureThreshold: 5, cooldownMs: 5_000 },
      lane: new SideWorkLanes(env, sideWorkMetrics(metrics)).for(env.JUDGE_BASE_URL),
    });
    this.batcher = new JudgeBatcher(this.client, env.JUDGE_BATCH_SIZE, logger);
    this.slots = new Semaphore(env.JUDGE_CONCURRENCY);
    this.latency = metrics.histogram(
      'labeller_judge_latency_seconds',
      'Judge call latency (all attempts of one judgement)',
      ['component'],
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    );
    this.failures = metrics.counter(
      'labeller_judge_failures_total',
      'Judgements that failed: timeout, rejected, unparseable, unavailable',
      ['component', 'kind'],
    );
  }

  onApplicationShutdown(): void {
    this.client.close();
  }

  async judge<T>(call: JudgeCall<T>): Promise<JudgeOutcome<T>> {
    const started = performance.now();
    try {
      return await this.slots.run(() => this.withRetries(call));
    } finally {
      this.latency.observe({ component: call.component }, (performance.now() - started) / 1_000);
    }
  }

  private async withRetries<T>(call: JudgeCall<T>): Promise<JudgeOutcome<T>> {
    const request = {
      model: this.model,
      messages: call.messages(),
      maxTokens: this.env.JUDGE_MAX_TOKENS,
      temperature: 0,
      priority: MODEL_PRIORITY.scoring,
      ...(this.env.JUDGE_CONSTRAIN_ANSWERS && call.pattern !== undefined && { pattern: call.pattern }),
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const outcome = await completeStructured(this.batcher, request, {
          parse: call.parse,
          correction: call.correction,
        });
        if (outcome.ok) return { ok: true, value: outcome.value, raw: outcome.raw, model: this.model };
        this.failures.inc({ component: call.component, kind: 'unparseable' });
        return {
          ok: false,
          error: `${outcome.problem}: ${outcome.detail}`,
          raw: outcome.raw,
          model: this.model,
        };
      } catch (error) {
        if (!(error instanceof ModelError)) throw error;
        if (error.retryable && attempt < this.env.JUDGE_RETRIES) {
          await sleep(backoffDelay(attempt + 1, { initialMs: BACKOFF_MS, maxMs: MAX_BACKOFF_MS }));
          continue;
        }
        if (error.code === 'model_unavailable') {
          this.failures.inc({ component: call.component, kind: 'unavailable' });
          throw new JudgeUnavailableError(`judge ${this.model} unavailable: ${error.message}`);
        }
        const kind = error.code === 'model_timeout' ? 'timeout' : 'rejected';
        this.failures.inc({ component: call.component, kind });
        return { ok: false, error: `${error.code}: ${error.message}`, raw: null, model: this.model };
      }
    }
  }
}
