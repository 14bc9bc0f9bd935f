import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';
import { callJson } from '@echoloop/platform';

export interface ScoreItem {
  history: { role: 'user' | 'assistant'; content: string }[];
  reply: string;
}

/** The labeller's live reward models (`POST /v1/rewards/score`): the composite reward of each reply. */
@Injectable()
export class LabellerClient {
  /** The endpoint's batch limit. */
  static readonly BATCH = 32;

  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv) {}

  async composites(items: readonly ScoreItem[]): Promise<(number | null)[]> {
    const out: (number | null)[] = [];
    for (let i = 0; i < items.length; i += LabellerClient.BATCH) {
      const batch = items.slice(i, i + LabellerClient.BATCH);
      const result = await callJson<{ items: { composite: { value: number } | null }[] }>('reward-labeller', {
        method: 'POST',
        url: new URL('/v1/rewards/score', this.env.LABELLER_URL).toString(),
        body: { items: batch, components: ['empathy', 'humanlike'] },
        apiKey: this.env.SERVICE_API_KEY,
        timeoutMs: 600_000,
      });
      out.push(...result.items.map((item) => item.composite?.value ?? null));
    }
    return out;
  }
}
