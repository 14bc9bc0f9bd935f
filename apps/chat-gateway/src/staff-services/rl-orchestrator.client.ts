import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type {
  ListRlJobsQuery,
  rlJobCancelled,
  rlJobDetail,
  rlJobList,
  rlTriggers,
  StartRlJobInput,
} from './rl-jobs.schemas';
import { Upstream } from './upstream';

/** The RL orchestrator's jobs API, with the gateway's service API key (RL_ORCHESTRATOR_URL, _API_KEY). */
@Injectable()
export class RlOrchestratorClient {
  private readonly upstream: Upstream;

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.upstream = new Upstream({
      service: 'rl-orchestrator',
      label: 'The RL orchestrator',
      url: env.RL_ORCHESTRATOR_URL,
      apiKey: env.RL_ORCHESTRATOR_API_KEY,
      timeoutMs: env.STAFF_SERVICES_TIMEOUT_MS,
    });
  }

  list(query: ListRlJobsQuery) {
    return this.upstream.call<z.infer<typeof rlJobList>>('GET', '/v1/rl/jobs', { query });
  }

  /** `onBehalfOf`: the user (or key) that asked the gateway, recorded as the job's `requestedBy`. */
  start(input: StartRlJobInput & { onBehalfOf: string }) {
    return this.upstream.call<z.infer<typeof rlJobDetail>>('POST', '/v1/rl/jobs', { body: input });
  }

  get(id: string) {
    return this.upstream.call<z.infer<typeof rlJobDetail>>('GET', `/v1/rl/jobs/${encodeURIComponent(id)}`);
  }

  cancel(id: string) {
    return this.upstream.call<z.infer<typeof rlJobCancelled>>(
      'POST',
      `/v1/rl/jobs/${encodeURIComponent(id)}/cancel`,
    );
  }

  triggers() {
    return this.upstream.call<z.infer<typeof rlTriggers>>('GET', '/v1/rl/triggers');
  }
}
