import type { ChatMessage } from '@echoloop/vocabulary';
import { completeStructured, MODEL_PRIORITY } from '@echoloop/llm';
import type { CheckpointEntity, ConversationEntity, DirectorNote } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { SideWorkQueue } from '../side-work/side-work-queue';
import {
  DIRECTOR_PROMPT_VERSION,
  directorGuidance,
  directorJsonSchema,
  directorMessages,
  type DirectorInput,
  parseDirectorOutput,
} from './director-prompt';

const TRANSCRIPT_MESSAGES = 12;
const MAX_TOKENS = 200;

/**
 * Echo-N1's director: after every Nth user turn of a conversation it reads the recent turns and decides to keep
 * the topic, deepen it, or gently open a new one; its note goes into the prompt of the reply to the next user
 * turn. It runs after the reply was sent, so no reply waits for it; a note that arrives late is not used. At most
 * DIRECTOR_CONCURRENCY steps run at once and DIRECTOR_QUEUE_SIZE wait; a step beyond that is dropped (counted in
 * side_work_dropped_total{work="director"}), and the conversation simply goes without a note until its next step.
 */
@Injectable()
export class DirectorService implements OnApplicationShutdown {
  /** Conversations with a step running or queued: one at a time each. */
  private readonly pending = new Set<string>();
  private readonly decisions: Counter<'outcome'>;
  private readonly queue: SideWorkQueue;

  constructor(
    private readonly conversations: ConversationsRepository,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly checkpoints: CheckpointsService,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.decisions = metrics.counter(
      'director_decisions_total',
      'Director steps by decision (keep, deepen, new-topic) or failure (invalid_output, model_error)',
      ['outcome'],
    );
    this.queue = new SideWorkQueue(
      'director',
      { concurrency: env.DIRECTOR_CONCURRENCY, queueSize: env.DIRECTOR_QUEUE_SIZE },
      metrics,
    );
  }

  onApplicationShutdown(): void {
    this.queue.close();
  }

  /** The director's guidance for the reply to user turn `turn`, if it decided after the turn before. */
  guidanceFor(conversation: ConversationEntity, turn: number): string {
    const note = conversation.director;
    return note && note.turn === turn - 1 ? directorGuidance(note) : '';
  }

  /** Runs the director after user turn `turn` when it is its turn (every N user turns, once per turn). */
  consider(
    conversation: ConversationEntity,
    turn: number,
    input: DirectorInput,
    checkpoint: CheckpointEntity,
  ): void {
    const every = this.env.DIRECTOR_EVERY_USER_TURNS;
    if (every === 0 || turn < every || turn % every !== 0) return;
    if (conversation.director?.turn === turn) return;
    if (this.pending.has(conversation.id)) return;
    const transcript: ChatMessage[] = input.transcript.slice(-TRANSCRIPT_MESSAGES);
    const accepted = this.queue.offer(() =>
      this.decide(conversation.id, turn, { ...input, transcript }, checkpoint)
        .then((outcome) => this.decisions.inc({ outcome }))
        .catch((error: unknown) => {
          this.decisions.inc({ outcome: 'model_error' });
          this.logger.warn({ err: error, conversationId: conversation.id }, 'director step failed');
        })
        .finally(() => this.pending.delete(conversation.id)),
    );
    if (accepted) this.pending.add(conversation.id);
    else this.logger.debug({ conversationId: conversation.id, turn }, 'director step dropped: queue full');
  }

  private async decide(
    conversationId: string,
    turn: number,
    input: DirectorInput,
    checkpoint: CheckpointEntity,
  ): Promise<string> {
    const outcome = await completeStructured(
      this.checkpoints.clientFor(checkpoint),
      {
        model: checkpoint.modelName,
        messages: directorMessages(input),
        maxTokens: MAX_TOKENS,
        temperature: 0.3,
        priority: MODEL_PRIORITY.conversation,
        responseFormat: {
          type: 'json_schema',
          json_schema: { name: 'director_decision', schema: directorJsonSchema, strict: true },
        },
      },
      {
        parse: parseDirectorOutput,
        correction: (detail) =>
          `That reply was not valid (${detail}). Reply again with only {"decision": ..., "note": ...}.`,
      },
    );
    if (!outcome.ok) {
      this.logger.warn(
        { conversationId, problem: outcome.problem, detail: outcome.detail, prompt: DIRECTOR_PROMPT_VERSION },
        'director output dropped: invalid model output',
      );
      return 'invalid_output';
    }
    const note: DirectorNote = { turn, ...outcome.value, decidedAt: new Date().toISOString() };
    await this.conversations.storeDirectorNote(conversationId, note);
    return note.decision;
  }
}
