import { SpanKind, traced } from '@echoloop/tracing';
import { ModelError } from '@echoloop/llm';
import type { CheckpointEntity } from '@echoloop/persistence';
import { MetricsService } from '@echoloop/platform';
import { buildStopStrings, StopTrimmer } from '@echoloop/prompt';
import { Inject, Injectable } from '@nestjs/common';
import type { Histogram } from 'prom-client';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { DeltaBatcher } from './delta-batcher';
import { ThinkFilter } from './think-filter';
import type { TurnContext } from './turn-context';
import type { TurnDone, TurnSink } from './turn-sink';

export interface StreamRequest {
  checkpoint: CheckpointEntity;
  maxTokens: number;
  context: TurnContext;
  conversationId: string;
  replyId: string;
  signal: AbortSignal;
  sink: TurnSink;
}

/** The reply as streamed: what the user saw, the reasoning they did not, and how it ended. */
export type StreamedReply = Omit<TurnDone, 'checkpointId'> & { reasoning: string | null };

/**
 * Streams one reply from the checkpoint's endpoint to the sink in small batches: `<think>` reasoning kept from the
 * user, the stop strings enforced even if the server ignores them (the model never speaks for the user), a stop
 * by the user ending it as `cancelled` with what was said. A model failure is thrown as a ModelError.
 */
@Injectable()
export class ReplyStreamer {
  private readonly ttft: Histogram;

  constructor(
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    private readonly checkpoints: CheckpointsService,
    metrics: MetricsService,
  ) {
    this.ttft = metrics.histogram(
      'chat_time_to_first_token_seconds',
      'Model time to first token',
      [],
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
    );
  }

  /** The model's reply, streamed to the sink; one client span of the trace it is part of. */
  stream(request: StreamRequest): Promise<StreamedReply> {
    return traced(
      'llm chat',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': request.checkpoint.modelName,
          'echoloop.checkpoint': request.checkpoint.id,
        },
      },
      async (span) => {
        const reply = await this.streamReply(request);
        span.setAttributes({
          'gen_ai.usage.input_tokens': reply.usage.promptTokens,
          'gen_ai.usage.output_tokens': reply.usage.completionTokens,
          'gen_ai.response.finish_reasons': [reply.finishReason],
          'echoloop.ttft_ms': reply.latencyMs.ttft,
        });
        return reply;
      },
    );
  }

  private async streamReply({
    checkpoint,
    maxTokens,
    context,
    conversationId,
    replyId,
    signal,
    sink,
  }: StreamRequest): Promise<StreamedReply> {
    const started = performance.now();
    let ttft = 0;
    const filter = new ThinkFilter();
    const batcher = new DeltaBatcher(
      { flushMs: this.env.DELTA_FLUSH_MS, flushChars: this.env.DELTA_FLUSH_CHARS },
      (index, delta) => sink.delta({ conversationId, replyId, index, delta }),
    );
    const stop = buildStopStrings({
      userName: context.userName,
      characterName: context.characterName,
      checkpointStop: checkpoint.decoding.stop,
    });
    const trimmer = new StopTrimmer(stop);
    let content = '';
    const reveal = (text: string) => {
      content += text;
      batcher.push(text);
    };
    let finishReason: TurnDone['finishReason'] = 'stop';
    let usage = { promptTokens: 0, completionTokens: 0 };
    const { decoding } = checkpoint;
    try {
      const request = {
        model: checkpoint.modelName,
        messages: context.prompt,
        maxTokens,
        ...(decoding.temperature !== undefined && { temperature: decoding.temperature }),
        ...(decoding.topP !== undefined && { topP: decoding.topP }),
        stop,
      };
      for await (const event of this.checkpoints.clientFor(checkpoint).stream(request, signal)) {
        if (event.type === 'delta') {
          if (!ttft) {
            ttft = performance.now() - started;
            this.ttft.observe(ttft / 1_000);
          }
          reveal(trimmer.push(filter.push(event.text)));
          // Stops reading, which cancels the upstream request: the rest is not for the user.
          if (trimmer.stopped) break;
        } else {
          finishReason = event.finishReason;
          usage = event.usage ?? usage;
        }
      }
    } catch (error) {
      if (!(error instanceof ModelError && error.code === 'cancelled')) {
        batcher.flush();
        throw error;
      }
      finishReason = 'cancelled';
    }
    reveal(trimmer.push(filter.end()));
    reveal(trimmer.end());
    batcher.flush();
    const reply: StreamedReply = {
      conversationId,
      replyId,
      content,
      reasoning: filter.reasoning,
      finishReason,
      usage,
      latencyMs: { ttft: Math.round(ttft), total: Math.round(performance.now() - started) },
    };
    return reply;
  }
}
