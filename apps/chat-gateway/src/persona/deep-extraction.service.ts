import { completeStructured, MODEL_PRIORITY } from '@echoloop/llm';
import {
  type ChatTurnText,
  DEEP_EXTRACTION_PROMPT_VERSION,
  deepExtractionCorrection,
  deepExtractionParser,
  deepExtractionRequest,
  extractionWindow,
} from '@echoloop/persona';
import { MetricsService } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { SideWorkQueue } from '../side-work/side-work-queue';
import { PersonaService } from './persona.service';

const RECENT_MESSAGES = 40;

export type DeepOutcome = 'merged' | 'invalid_output' | 'model_error' | 'inference_off' | 'context_too_small';

/**
 * The deep half of persona inference: an LLM reads the conversation's recent messages and reports the profile
 * fields it can judge, constrained by a JSON Schema (vLLM guided decoding via `response_format`). It runs after
 * a reply was sent, never before one, at most once at a time per user. Output that is not valid JSON or breaks
 * the schema is retried once, then counted and dropped: nothing of it is stored. At most
 * DEEP_EXTRACTION_CONCURRENCY run at once and DEEP_EXTRACTION_QUEUE_SIZE wait; one beyond that is dropped (counted in
 * side_work_dropped_total{work="deep_extraction"}) and the user's next due turn schedules it again.
 */
@Injectable()
export class DeepExtractionService implements OnApplicationShutdown {
  /** Users with an extraction running or queued: one at a time each. */
  private readonly pending = new Set<string>();
  private readonly outcomes: Counter<'outcome'>;
  private readonly queue: SideWorkQueue;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly checkpoints: CheckpointsService,
    private readonly persona: PersonaService,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
  ) {
    this.outcomes = metrics.counter(
      'persona_deep_extractions_total',
      'Deep persona extractions by outcome (invalid_output: bad JSON or out of schema twice)',
      ['outcome'],
    );
    this.queue = new SideWorkQueue(
      'deep_extraction',
      { concurrency: env.DEEP_EXTRACTION_CONCURRENCY, queueSize: env.DEEP_EXTRACTION_QUEUE_SIZE },
      metrics,
    );
  }

  onApplicationShutdown(): void {
    this.queue.close();
  }

  /**
   * Queues an extraction over the conversation up to `through` unless one is running or queued for the user; drops
   * it when the queue is full. Returns at once either way.
   */
  schedule(userId: string, conversationId: string, through: Date): void {
    if (this.pending.has(userId)) return;
    const accepted = this.queue.offer(() =>
      this.extract(userId, conversationId, through)
        .then((outcome) => this.outcomes.inc({ outcome }))
        .catch((error: unknown) => {
          this.outcomes.inc({ outcome: 'model_error' });
          this.logger.warn({ err: error, userId, conversationId }, 'deep persona extraction failed');
        })
        .finally(() => this.pending.delete(userId)),
    );
    if (accepted) this.pending.add(userId);
    else this.logger.debug({ userId, conversationId }, 'deep persona extraction dropped: queue full');
  }

  private async extract(userId: string, conversationId: string, through: Date): Promise<DeepOutcome> {
    const window = extractionWindow(await this.recentMessages(conversationId, through));
    if (!window.some((message) => message.role === 'user')) return 'merged';
    const checkpoint = await this.checkpoints.defaultCheckpoint();
    const request = deepExtractionRequest(checkpoint.modelName, window, checkpoint.contextTokens);
    if (!request) return 'context_too_small';
    const outcome = await completeStructured(
      this.checkpoints.clientFor(checkpoint),
      { ...request, priority: MODEL_PRIORITY.conversation },
      { parse: deepExtractionParser(window), correction: deepExtractionCorrection },
    );
    if (!outcome.ok) {
      this.logger.warn(
        { userId, problem: outcome.problem, detail: outcome.detail, prompt: DEEP_EXTRACTION_PROMPT_VERSION },
        'deep persona extraction dropped: invalid model output',
      );
      // Counted as an attempt: the next one waits for fresh messages instead of hammering a confused model.
      await this.persona.mergeNow(userId, [], 'deep-extraction');
      return 'invalid_output';
    }
    const merged = await this.persona.mergeNow(userId, outcome.value, 'deep-extraction');
    return merged === null ? 'inference_off' : 'merged';
  }

  private async recentMessages(conversationId: string, through: Date): Promise<ChatTurnText[]> {
    const rows = await this.conversations.recentCompleteMessages(conversationId, through, RECENT_MESSAGES);
    return rows.reverse().map((m) => ({
      id: m.id,
      role: m.role === 'user' ? 'user' : 'assistant',
      content: m.content,
      createdAt: m.createdAt,
    }));
  }
}
