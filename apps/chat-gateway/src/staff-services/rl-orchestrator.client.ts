import type { ListRlJobsQuery, RlOrchestratorPaths } from '@echoloop/vocabulary';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type { StartRlJobInput } from './rl-jobs.schemas';
import { staffService, type Upstream } from './upstream';

/**
 * The RL orchestrator's jobs API, with the gateway's service API key (RL_ORCHESTRATOR_URL, _API_KEY), typed by the
 * orchestrator's OpenAPI document.
 */
@Injectable()
export class RlOrchestratorClient {
  private readonly upstream: Upstream<RlOrchestratorPaths>;

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.upstream = staffService('rl-orchestrator', env);
  }

  list(query: ListRlJobsQuery) {
    return this.upstream.call('get', '/v1/rl/jobs', { query });
  }

  /** `onBehalfOf`: the user (or key) that asked the gateway, recorded as the job's `requestedBy`. */
  start(input: StartRlJobInput & { onBehalfOf: string }) {
    return this.upstream.call('post', '/v1/rl/jobs', { body: input });
  }

  get(id: string) {
    return this.upstream.call('get', '/v1/rl/jobs/{id}', { path: { id } });
  }

  cancel(id: string) {
    return this.upstream.call('post', '/v1/rl/jobs/{id}/cancel', { path: { id } });
  }

  triggers() {
    return this.upstream.call('get', '/v1/rl/triggers');
  }
}
