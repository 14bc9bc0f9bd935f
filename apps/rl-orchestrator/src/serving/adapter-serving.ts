import type { CheckpointEndpoint } from '@echoloop/persistence';
import {
  callJson,
  checkpointEndpointPolicy,
  checkpointModelEndpoints,
  ServiceCallError,
} from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

const route = (baseUrl: string, name: string) => `${baseUrl.replace(/\/+$/, '')}/${name}`;

/**
 * Loads an adapter into every serving endpoint of its base, the way vLLM serves them at runtime
 * (`/v1/load_lora_adapter`): all or nothing, so a checkpoint is never half served.
 */
@Injectable()
export class AdapterServing {
  private readonly policy;

  constructor(@Inject(ORCHESTRATOR_ENV) env: OrchestratorEnv) {
    this.policy = checkpointEndpointPolicy(env);
  }

  /**
   * Loads everywhere, or unloads what it loaded and throws: a refusal as is, a server away or busy as a transient
   * error (the driver tries the stage again).
   */
  async load(name: string, adapterPath: string, endpoints: readonly CheckpointEndpoint[]): Promise<void> {
    const targets = checkpointModelEndpoints({ id: name, endpoints }, this.policy);
    const loaded: typeof targets = [];
    for (const target of targets) {
      try {
        await callJson('model server', {
          method: 'POST',
          url: route(target.baseUrl, 'load_lora_adapter'),
          // In place: a load retried after a timeout (it may have landed) replaces, never collides with, itself.
          body: { lora_name: name, lora_path: adapterPath, load_inplace: true },
          bearer: target.apiKey,
          // A server busy generating answers the load when its queue reaches it.
          timeoutMs: 600_000,
        });
        loaded.push(target);
      } catch (error) {
        await Promise.allSettled([...loaded, target].map((done) => this.unloadFrom(done, name)));
        if (error instanceof ServiceCallError && error.transient) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw new ServiceCallError(
          'model server',
          error instanceof ServiceCallError ? error.status : null,
          `loading ${name} into ${target.baseUrl} failed: ${message}`,
        );
      }
    }
  }

  /** Unloads from every endpoint; an endpoint that no longer has it is fine. */
  async unload(name: string, endpoints: readonly CheckpointEndpoint[]): Promise<void> {
    const targets = checkpointModelEndpoints({ id: name, endpoints }, this.policy);
    await Promise.allSettled(targets.map((target) => this.unloadFrom(target, name)));
  }

  private async unloadFrom(target: { baseUrl: string; apiKey: string }, name: string): Promise<void> {
    await callJson('model server', {
      method: 'POST',
      url: route(target.baseUrl, 'unload_lora_adapter'),
      body: { lora_name: name },
      bearer: target.apiKey,
    }).catch((error: unknown) => {
      if (error instanceof ServiceCallError && error.status === 404) return;
      throw error;
    });
  }
}
