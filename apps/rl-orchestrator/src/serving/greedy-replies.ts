import type { ChatMessage } from '@echoloop/vocabulary';
import { ChatModelClient, DEFAULT_CLIENT_OPTIONS, MODEL_PRIORITY } from '@echoloop/llm';
import { checkpointEndpointPolicy, checkpointModelEndpoints } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { CheckpointView } from '../clients/gateway.client';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

/**
 * A checkpoint's greedy answers (temperature 0) from its serving endpoints, `GATE_CONCURRENCY` prompts in flight at
 * once: the engine decodes them in one batch, at scoring priority (a user's reply goes first), in the prompts' order.
 */
@Injectable()
export class GreedyReplies {
  private readonly policy;

  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv) {
    this.policy = checkpointEndpointPolicy(env);
  }

  async answer(checkpoint: CheckpointView, prompts: readonly ChatMessage[][]): Promise<string[]> {
    const client = new ChatModelClient(checkpointModelEndpoints(checkpoint, this.policy), {
      ...DEFAULT_CLIENT_OPTIONS,
      // A CPU server answers these behind live traffic (and pauses them for a user's reply).
      firstTokenTimeoutMs: 120_000,
      idleTimeoutMs: 60_000,
    });
    const replies = new Array<string>(prompts.length);
    let next = 0;
    const answerNext = async (): Promise<void> => {
      for (let i = next++; i < prompts.length; i = next++) {
        const { text } = await client.complete({
          model: checkpoint.modelName,
          messages: prompts[i] ?? [],
          temperature: 0,
          maxTokens: this.env.GATE_MAX_TOKENS ?? checkpoint.decoding.maxTokens ?? 128,
          priority: MODEL_PRIORITY.scoring,
        });
        replies[i] = text;
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.env.GATE_CONCURRENCY, prompts.length) }, answerNext),
    );
    return replies;
  }
}
