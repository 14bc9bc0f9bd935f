import { type ChatMessage, stripThink } from '@echoloop/vocabulary';
import { MODEL_PRIORITY } from '@echoloop/llm';
import type { CheckpointEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ConversationsRepository } from '../conversations/conversations.repository';

export interface OverflowedTurns {
  conversationId: string;
  /** Turns that fell out of the prompt window, oldest first, with their creation times. */
  dropped: (ChatMessage & { createdAt: Date })[];
  previousSummary: string | null;
  summaryThrough: Date | null;
}

export const SUMMARY_INSTRUCTIONS =
  'Summarize the conversation below for your own memory, in at most 120 words: facts about the user, what they ' +
  'care about, how they feel, promises made and open threads. Keep what the earlier summary says unless the ' +
  'conversation corrects it. Write plain sentences, no preamble.';

const MAX_SUMMARY_CHARS = 2_000;
const MAX_TRANSCRIPT_CHARS = 6_000;

/**
 * Rolling memory: when turns fall out of the model's context window, they are folded into a per-conversation
 * summary, off the hot path (after the reply is sent), one conversation at a time. The prompt builder puts the
 * summary in the system prompt, so long conversations keep what was said.
 */
@Injectable()
export class MemoryService {
  private readonly running = new Map<string, Promise<void>>();
  private readonly outcomes: Counter<'outcome'>;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly checkpoints: CheckpointsService,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.outcomes = metrics.counter('memory_summaries_total', 'Rolling summaries written or failed', [
      'outcome',
    ]);
  }

  /** Schedules a summary update if turns newer than the current summary overflowed; never blocks the caller. */
  remember(overflow: OverflowedTurns, checkpoint: CheckpointEntity): void {
    const fresh = overflow.dropped.filter(
      (m) => !overflow.summaryThrough || m.createdAt > overflow.summaryThrough,
    );
    if (fresh.length === 0 || this.running.has(overflow.conversationId)) return;
    const job = this.summarize({ ...overflow, dropped: fresh }, checkpoint)
      .then(() => this.outcomes.inc({ outcome: 'written' }))
      .catch((error: unknown) => {
        this.outcomes.inc({ outcome: 'failed' });
        this.logger.warn({ err: error, conversationId: overflow.conversationId }, 'rolling summary failed');
      })
      .finally(() => this.running.delete(overflow.conversationId));
    this.running.set(overflow.conversationId, job);
  }

  /** Resolves when no summary is being written for the conversation (tests, shutdown). */
  async settled(conversationId: string): Promise<void> {
    await this.running.get(conversationId);
  }

  private async summarize(overflow: OverflowedTurns, checkpoint: CheckpointEntity): Promise<void> {
    // Bounded, so the summary request always fits the model's context (newest turns kept).
    const transcript = overflow.dropped
      .map((m) => `${m.role === 'user' ? 'User' : 'You'}: ${m.content}`)
      .join('\n')
      .slice(-MAX_TRANSCRIPT_CHARS);
    const messages: ChatMessage[] = [
      { role: 'system', content: SUMMARY_INSTRUCTIONS },
      {
        role: 'user',
        content: `${overflow.previousSummary ? `Earlier summary:\n${overflow.previousSummary}\n\n` : ''}Conversation:\n${transcript}`,
      },
    ];
    // Read whole: background work that a user's reply preempts starts over (ChatModelClient.complete).
    const { text } = await this.checkpoints.clientFor(checkpoint).complete({
      model: checkpoint.modelName,
      messages,
      maxTokens: 200,
      temperature: 0.2,
      priority: MODEL_PRIORITY.conversation,
    });
    const summary = stripThink(text).trim().slice(0, MAX_SUMMARY_CHARS);
    if (!summary) return;
    const through = overflow.dropped.at(-1)?.createdAt ?? new Date();
    await this.conversations.storeSummary(overflow.conversationId, summary, through);
  }
}
