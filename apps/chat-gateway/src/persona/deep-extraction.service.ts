import { completeStructured } from '@echoloop/llm';
import {
  type ChatTurnText,
  DEEP_EXTRACTION_PROMPT_VERSION,
  deepExtractionCorrection,
  deepExtractionParser,
  deepExtractionRequest,
  extractionWindow,
} from '@echoloop/persona';
import { MessageEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { PersonaService } from './persona.service';

const RECENT_MESSAGES = 40;

export type DeepOutcome = 'merged' | 'invalid_output' | 'model_error' | 'inference_off' | 'context_too_small';

/**
 * The deep half of persona inference: an LLM reads the conversation's recent messages and reports the profile
 * fields it can judge, constrained by a JSON Schema (vLLM guided decoding via `response_format`). It runs after
 * a reply was sent, never before one, at most once at a time per user. Output that is not valid JSON or breaks
 * the schema is retried once, then counted and dropped: nothing of it is stored.
 */
@Injectable()
export class DeepExtractionService {
  private readonly running = new Map<string, Promise<void>>();
  private readonly outcomes: Counter<'outcome'>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly checkpoints: CheckpointsService,
    private readonly persona: PersonaService,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.outcomes = metrics.counter(
      'persona_deep_extractions_total',
      'Deep persona extractions by outcome (invalid_output: bad JSON or out of schema twice)',
      ['outcome'],
    );
  }

  /** Starts an extraction over the conversation up to `through` unless one is running for the user. */
  schedule(userId: string, conversationId: string, through: Date): void {
    if (this.running.has(userId)) return;
    const job = this.extract(userId, conversationId, through)
      .then((outcome) => this.outcomes.inc({ outcome }))
      .catch((error: unknown) => {
        this.outcomes.inc({ outcome: 'model_error' });
        this.logger.warn({ err: error, userId, conversationId }, 'deep persona extraction failed');
      })
      .finally(() => this.running.delete(userId));
    this.running.set(userId, job);
  }

  private async extract(userId: string, conversationId: string, through: Date): Promise<DeepOutcome> {
    const window = extractionWindow(await this.recentMessages(conversationId, through));
    if (!window.some((message) => message.role === 'user')) return 'merged';
    const checkpoint = await this.checkpoints.defaultCheckpoint();
    const request = deepExtractionRequest(checkpoint.modelName, window, checkpoint.contextTokens);
    if (!request) return 'context_too_small';
    const outcome = await completeStructured(this.checkpoints.clientFor(checkpoint), request, {
      parse: deepExtractionParser(window),
      correction: deepExtractionCorrection,
    });
    if (!outcome.ok) {
      this.logger.warn(
        { userId, problem: outcome.problem, detail: outcome.detail, prompt: DEEP_EXTRACTION_PROMPT_VERSION },
        'deep persona extraction dropped: invalid model output',
      );
      // Counted as an attempt: the next one waits for fresh messages instead of hammering a confused model.
      await this.db.transaction((tx) => this.persona.merge(tx, userId, [], 'deep-extraction'));
      return 'invalid_output';
    }
    const merged = await this.db.transaction((tx) =>
      this.persona.merge(tx, userId, outcome.value, 'deep-extraction'),
    );
    return merged === null ? 'inference_off' : 'merged';
  }

  private async recentMessages(conversationId: string, through: Date): Promise<ChatTurnText[]> {
    const rows = await this.db
      .getRepository(MessageEntity)
      .createQueryBuilder('m')
      .where('m.conversation_id = :conversationId', { conversationId })
      .andWhere('m.created_at <= :through', { through })
      .andWhere("m.status = 'complete'")
      .andWhere('m.selected')
      .orderBy('m.created_at', 'DESC')
      .addOrderBy('m.id', 'DESC')
      .take(RECENT_MESSAGES)
      .getMany();
    return rows.reverse().map((m) => ({
      id: m.id,
      role: m.role === 'user' ? 'user' : 'assistant',
      content: m.content,
      createdAt: m.createdAt,
    }));
  }
}
