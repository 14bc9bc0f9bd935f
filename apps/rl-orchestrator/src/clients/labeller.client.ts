import { ServiceClient } from '@echoloop/platform';
import type { LabellerPaths } from '@echoloop/vocabulary';
import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

export interface ScoreItem {
  history: { role: 'user' | 'assistant'; content: string }[];
  reply: string;
}

/** The labeller's live reward models (`POST /v1/rewards/score`): the composite reward of each reply. */
@Injectable()
export class LabellerClient {
  /** The endpoint's batch limit. */
  static readonly BATCH = 32;

  private readonly api: ServiceClient<LabellerPaths>;

  constructor(@Inject(ORCHESTRATOR_ENV) env: OrchestratorEnv) {
    this.api = new ServiceClient('reward-labeller', {
      baseUrl: env.LABELLER_URL,
      apiKey: env.SERVICE_API_KEY,
      timeoutMs: 600_000,
    });
  }

  async composites(items: readonly ScoreItem[]): Promise<(number | null)[]> {
    const out: (number | null)[] = [];
    for (let i = 0; i < items.length; i += LabellerClient.BATCH) {
      const batch = items.slice(i, i + LabellerClient.BATCH);
      const result = await this.api.call('post', '/v1/rewards/score', {
        body: { items: [...batch], components: ['empathy', 'humanlike'] },
      });
      out.push(...result.items.map((item) => item.composite?.value ?? null));
    }
    return out;
  }
}
