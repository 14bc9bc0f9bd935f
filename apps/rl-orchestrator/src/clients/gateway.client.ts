import type { CheckpointEndpoint, DecodingParameters } from '@echoloop/persistence';
import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';
import { callJson } from '@echoloop/platform';

export interface CheckpointView {
  id: string;
  modelName: string;
  endpoints: CheckpointEndpoint[];
  decoding: DecodingParameters;
  contextTokens: number;
  /** The LoRA folder its endpoints load; null for a base model. */
  adapterPath: string | null;
  status: string;
  isDefault: boolean;
}

export interface ExperimentView {
  id: string;
  status: string;
}

/** The gateway's checkpoint registry and experiments, as an experimenter's API key sees them. */
@Injectable()
export class GatewayClient {
  constructor(@Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv) {}

  async checkpoints(): Promise<CheckpointView[]> {
    return (await this.call<{ items: CheckpointView[] }>('GET', '/v1/checkpoints')).items;
  }

  async defaultCheckpoint(): Promise<CheckpointView> {
    const current = (await this.checkpoints()).find((c) => c.isDefault);
    if (!current) throw new Error('the gateway has no default checkpoint');
    return current;
  }

  registerCheckpoint(checkpoint: Omit<CheckpointView, 'isDefault' | 'status'>): Promise<CheckpointView> {
    return this.call('POST', '/v1/checkpoints', { ...checkpoint, status: 'candidate' });
  }

  retireCheckpoint(id: string): Promise<CheckpointView> {
    return this.call('POST', `/v1/checkpoints/${encodeURIComponent(id)}/retire`);
  }

  createExperiment(input: Record<string, unknown>): Promise<ExperimentView> {
    return this.call('POST', '/v1/experiments', input);
  }

  startExperiment(id: string): Promise<ExperimentView> {
    return this.call('POST', `/v1/experiments/${encodeURIComponent(id)}/start`);
  }

  private call<T>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<T> {
    return callJson<T>('gateway', {
      method,
      url: new URL(route, this.env.GATEWAY_URL).toString(),
      body,
      apiKey: this.env.SERVICE_API_KEY,
    });
  }
}
