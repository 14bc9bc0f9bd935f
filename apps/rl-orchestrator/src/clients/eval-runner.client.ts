import { ServiceClient } from '@echoloop/platform';
import type { EvalRunnerPaths } from '@echoloop/vocabulary';
import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

/** An evaluation as the eval-runner answers it, with its report once asked for by id. */
export type EvaluationView = Awaited<ReturnType<EvalRunnerClient['start']>> & {
  report?: Awaited<ReturnType<EvalRunnerClient['get']>>['report'];
};

/** The eval-runner's sentient benchmark, typed by its OpenAPI document. */
@Injectable()
export class EvalRunnerClient {
  private readonly api: ServiceClient<EvalRunnerPaths>;

  constructor(@Inject(ORCHESTRATOR_ENV) env: OrchestratorEnv) {
    this.api = new ServiceClient('eval-runner', {
      baseUrl: env.EVAL_RUNNER_URL,
      apiKey: env.SERVICE_API_KEY,
    });
  }

  /** Starts a benchmark run: on the given profiles, or `limit` benchmark profiles spread over hidden needs. */
  start(checkpointId: string, choice: { profiles: string[] } | { limit: number }) {
    return this.api.call('post', '/v1/evaluations', {
      body: { checkpointId, suite: 'sentient', pool: 'benchmark', ...choice },
    });
  }

  get(id: string) {
    return this.api.call('get', '/v1/evaluations/{id}', { path: { id } });
  }
}
