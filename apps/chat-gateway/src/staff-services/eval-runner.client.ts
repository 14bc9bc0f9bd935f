import type { CreateEvaluationRequest, EvalRunnerPaths, ListEvaluationsQuery } from '@echoloop/vocabulary';
import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import type { CompareQuery } from './evaluation.schemas';
import { staffService, type Upstream, UpstreamException } from './upstream';

/**
 * The eval-runner's evaluations API, with the gateway's service API key (EVAL_RUNNER_URL, _API_KEY), typed by the
 * eval-runner's OpenAPI document.
 */
@Injectable()
export class EvalRunnerClient {
  private readonly upstream: Upstream<EvalRunnerPaths>;

  constructor(@Inject(GATEWAY_ENV) env: GatewayEnv) {
    this.upstream = staffService('eval-runner', env);
  }

  list(query: ListEvaluationsQuery) {
    return this.upstream.call('get', '/v1/evaluations', { query });
  }

  create(input: CreateEvaluationRequest) {
    return this.upstream.call('post', '/v1/evaluations', { body: input });
  }

  get(id: string) {
    return this.upstream.call('get', '/v1/evaluations/{id}', { path: { id } });
  }

  compare(query: CompareQuery) {
    return this.upstream.call('get', '/v1/evaluations/compare', { query });
  }

  async reportHtml(id: string): Promise<string> {
    const html: unknown = await this.upstream.call('get', '/v1/evaluations/{id}/report.html', {
      path: { id },
    });
    if (typeof html !== 'string') {
      throw new UpstreamException(502, 'bad_gateway', 'The eval-runner answered no HTML report');
    }
    return html;
  }
}
