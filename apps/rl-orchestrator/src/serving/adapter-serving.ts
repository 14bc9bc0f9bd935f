import { modelListSchema } from '@echoloop/openai-compat';
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

type Target = { baseUrl: string; apiKey: string };

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
        await this.loadInto(target, name, adapterPath);
        loaded.push(target);
      } catch (error) {
        // A refusal left this endpoint as it was (the name may be another adapter's); a timeout may have landed.
        const mayHaveLanded = !(error instanceof ServiceCallError) || error.transient;
        const undo = mayHaveLanded ? [...loaded, target] : loaded;
        await Promise.allSettled(undo.map((done) => this.unloadFrom(done, name)));
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

  /**
   * Loads the adapter under its name, never in place: vLLM may serve an in-place reload from prefix-cache entries
   * of the old weights (vllm#42125). A load refused because the name is taken is fine only when the endpoint serves
   * that name from this very path (an earlier try that timed out but landed); any other holder of the name is an
   * error, never overwritten.
   */
  private async loadInto(target: Target, name: string, adapterPath: string): Promise<void> {
    try {
      await callJson('model server', {
        method: 'POST',
        url: route(target.baseUrl, 'load_lora_adapter'),
        body: { lora_name: name, lora_path: adapterPath },
        bearer: target.apiKey,
        // A server busy generating answers the load when its queue reaches it.
        timeoutMs: 600_000,
      });
    } catch (error) {
      if (
        error instanceof ServiceCallError &&
        error.status === 400 &&
        (await this.serves(target, name, adapterPath))
      )
        return;
      throw error;
    }
  }

  /** Whether the endpoint lists the adapter `name` loaded from `adapterPath` (its `/v1/models` root). */
  private async serves(target: Target, name: string, adapterPath: string): Promise<boolean> {
    const list = modelListSchema.safeParse(
      await callJson('model server', {
        method: 'GET',
        url: route(target.baseUrl, 'models'),
        bearer: target.apiKey,
      }),
    );
    return list.success && list.data.data.some((card) => card.id === name && card.root === adapterPath);
  }

  /** Unloads from every endpoint; an endpoint that no longer has it is fine. */
  async unload(name: string, endpoints: readonly CheckpointEndpoint[]): Promise<void> {
    const targets = checkpointModelEndpoints({ id: name, endpoints }, this.policy);
    await Promise.allSettled(targets.map((target) => this.unloadFrom(target, name)));
  }

  private async unloadFrom(target: Target, name: string): Promise<void> {
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
