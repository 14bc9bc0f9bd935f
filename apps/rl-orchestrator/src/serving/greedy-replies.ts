import type { ChatMessage } from '@echoloop/vocabulary';
import { ChatModelClient, DEFAULT_CLIENT_OPTIONS, MODEL_PRIORITY } from '@echoloop/llm';
import { checkpointEndpointPolicy, checkpointModelEndpoints } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { CheckpointView } from '../clients/gateway.client';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

/** A checkpoint's greedy answers (temperature 0) from its serving endpoints, one prompt after another. */
@Injectable()
export class GreedyReplies {
  private readonly policy;

  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv) {
    this.policy = checkpointEndpointPolicy(env);
  }

  async answer(checkpoint: CheckpointView, prompts: readonly ChatMessage[][]): Promise<string[]> {
    const client = new ChatModelClient(checkpointModelEndpoints(checkpoint, this.policy), {
      ...DEFAULT_CLIENT_OPTIONS,
      // A CPU server answers these one at a time, behind live traffic (and pauses them for a user's reply).
      firstTokenTimeoutMs: 120_000,
      idleTimeoutMs: 60_000,
    });
    const replies: string[] = [];
    for (const messages of prompts) {
      const { text } = await client.complete({
        model: checkpoint.modelName,
        messages,
        temperature: 0,
        maxTokens: this.env.GATE_MAX_TOKENS ?? checkpoint.decoding.maxTokens ?? 128,
        priority: MODEL_PRIORITY.scoring,
      });
      replies.push(text);
    }
    return replies;
  }
}
