import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';
import { callJson } from '@echoloop/platform';

export interface EvaluationView {
  id: string;
  checkpointId: string;
  profileIds: string[];
  status: 'running' | 'finished' | 'failed';
  error: string | null;
  /** Per profile, the emotion the simulated user ended with (the gate pairs them across checkpoints). */
  report?: { episodes: { profileId: string; finalScore: number }[] };
}

/** The eval-runner's sentient benchmark. */
@Injectable()
export class EvalRunnerClient {
  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv) {}

  /** Starts a benchmark run: on the given profiles, or `limit` benchmark profiles spread over hidden needs. */
  start(checkpointId: string, choice: { profiles: string[] } | { limit: number }): Promise<EvaluationView> {
    return callJson('eval-runner', {
      method: 'POST',
      url: new URL('/v1/evaluations', this.env.EVAL_RUNNER_URL).toString(),
      body: { checkpointId, suite: 'sentient', pool: 'benchmark', ...choice },
      apiKey: this.env.SERVICE_API_KEY,
    });
  }

  get(id: string): Promise<EvaluationView> {
    return callJson('eval-runner', {
      method: 'GET',
      url: new URL(`/v1/evaluations/${encodeURIComponent(id)}`, this.env.EVAL_RUNNER_URL).toString(),
      apiKey: this.env.SERVICE_API_KEY,
    });
  }
}
