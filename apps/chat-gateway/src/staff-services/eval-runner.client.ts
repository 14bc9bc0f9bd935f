import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type {
  CompareQuery,
  evaluationComparison,
  evaluationDetail,
  evaluationList,
  evaluationView,
} from './evaluation.schemas';
import type { CreateEvaluationRequest, ListEvaluationsQuery } from '@echoloop/vocabulary';
import { Upstream, UpstreamException } from './upstream';

const path = (id: string, rest = '') => `/v1/evaluations/${encodeURIComponent(id)}${rest}`;

/** The eval-runner's evaluations API, with the gateway's service API key (EVAL_RUNNER_URL, _API_KEY). */
@Injectable()
export class EvalRunnerClient {
  private readonly upstream: Upstream;

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.upstream = new Upstream({
      service: 'eval-runner',
      label: 'The eval-runner',
      url: env.EVAL_RUNNER_URL,
      apiKey: env.EVAL_RUNNER_API_KEY,
      timeoutMs: env.STAFF_SERVICES_TIMEOUT_MS,
    });
  }

  list(query: ListEvaluationsQuery) {
    return this.upstream.call<z.infer<typeof evaluationList>>('GET', '/v1/evaluations', { query });
  }

  create(input: CreateEvaluationRequest) {
    return this.upstream.call<z.infer<typeof evaluationView>>('POST', '/v1/evaluations', { body: input });
  }

  get(id: string) {
    return this.upstream.call<z.infer<typeof evaluationDetail>>('GET', path(id));
  }

  compare(query: CompareQuery) {
    return this.upstream.call<z.infer<typeof evaluationComparison>>('GET', '/v1/evaluations/compare', {
      query,
    });
  }

  async reportHtml(id: string): Promise<string> {
    const html = await this.upstream.call<unknown>('GET', path(id, '/report.html'));
    if (typeof html !== 'string') {
      throw new UpstreamException(502, 'bad_gateway', 'The eval-runner answered no HTML report');
    }
    return html;
  }
}
