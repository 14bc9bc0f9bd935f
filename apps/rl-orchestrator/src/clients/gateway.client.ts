import { ServiceClient } from '@echoloop/platform';
import type { GatewayPaths } from '@echoloop/vocabulary';
import { Inject, Injectable } from '@nestjs/common';
import type { RequestBodyJSON } from 'openapi-typescript-helpers';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

/** A checkpoint as the gateway's registry answers it. */
export type CheckpointView = Awaited<ReturnType<GatewayClient['checkpoints']>>[number];
/** What registering a candidate sends; it is registered as a candidate. */
export type NewCheckpoint = Omit<RequestBodyJSON<GatewayPaths['/v1/checkpoints']['post']>, 'status'>;

/** The gateway's checkpoint registry and experiments, as an experimenter's API key sees them. */
@Injectable()
export class GatewayClient {
  private readonly api: ServiceClient<GatewayPaths>;

  constructor(@Inject(ORCHESTRATOR_ENV) env: OrchestratorEnv) {
    this.api = new ServiceClient('gateway', { baseUrl: env.GATEWAY_URL, apiKey: env.SERVICE_API_KEY });
  }

  async checkpoints() {
    return (await this.api.call('get', '/v1/checkpoints')).items;
  }

  async defaultCheckpoint(): Promise<CheckpointView> {
    const current = (await this.checkpoints()).find((c) => c.isDefault);
    if (!current) throw new Error('the gateway has no default checkpoint');
    return current;
  }

  registerCheckpoint(checkpoint: NewCheckpoint) {
    return this.api.call('post', '/v1/checkpoints', { body: { ...checkpoint, status: 'candidate' } });
  }

  retireCheckpoint(id: string) {
    return this.api.call('post', '/v1/checkpoints/{id}/retire', { path: { id } });
  }

  createExperiment(input: RequestBodyJSON<GatewayPaths['/v1/experiments']['post']>) {
    return this.api.call('post', '/v1/experiments', { body: input });
  }

  startExperiment(id: string) {
    return this.api.call('post', '/v1/experiments/{id}/start', { path: { id } });
  }
}
