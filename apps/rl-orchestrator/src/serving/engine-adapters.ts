import { modelListSchema } from '@echoloop/openai-compat';
import { callJson, ServiceCallError } from '@echoloop/platform';
import { Injectable } from '@nestjs/common';
import { MODEL_PRIORITY } from '@echoloop/llm';

/** One serving endpoint (vLLM's OpenAI-compatible API) and the key it takes. */
export interface EngineTarget {
  baseUrl: string;
  apiKey: string;
}

const route = (baseUrl: string, name: string) => `${baseUrl.replace(/\/+$/, '')}/${name}`;
const SERVICE = 'model server';
/** A prompt about as long as a chat turn's (a few hundred tokens), so the first real one finds nothing to prepare. */
const WARM_UP_MESSAGES = [
  { role: 'system', content: 'You are a warm, attentive companion. '.repeat(24) },
  { role: 'user', content: 'Hello, how are you today?' },
];
/** After the user's replies, before scoring (libs/llm MODEL_PRIORITY): an adapter about to serve users. */
const WARM_UP_PRIORITY = MODEL_PRIORITY.conversation;

/**
 * What an endpoint says about a load that did not succeed: `away` when it could not be asked (unreachable,
 * restarting, overloaded) and asking again later may work; `refused` when it answered that it will not.
 */
export function loadOutcome(error: unknown): { kind: 'away' | 'refused'; detail: string } {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof ServiceCallError) {
    const away = error.status === null || [429, 502, 503, 504].includes(error.status);
    return { kind: away ? 'away' : 'refused', detail };
  }
  return { kind: 'refused', detail };
}

/** vLLM's runtime LoRA routes on one endpoint (VLLM_ALLOW_RUNTIME_LORA_UPDATING), and its model list. */
@Injectable()
export class EngineAdapters {
  /** The LoRA adapters the endpoint serves now: name → the path it loaded them from. */
  async list(target: EngineTarget): Promise<Map<string, string>> {
    const cards = await this.models(target);
    return new Map(cards.filter((card) => card.parent).map((card) => [card.id, card.root ?? '']));
  }

  /** Where the endpoint's base model was loaded from (its model cards without a parent). */
  async baseRoots(target: EngineTarget): Promise<string[]> {
    const cards = await this.models(target);
    return cards.filter((card) => !card.parent).map((card) => card.root ?? '');
  }

  private async models(target: EngineTarget) {
    const body = await callJson(SERVICE, {
      method: 'GET',
      url: route(target.baseUrl, 'models'),
      bearer: target.apiKey,
      timeoutMs: 10_000,
    });
    const list = modelListSchema.safeParse(body);
    if (!list.success) throw new ServiceCallError(SERVICE, 200, 'GET /models answered no model list');
    return list.data.data;
  }

  /**
   * Loads under its name, never in place: vLLM may serve an in-place reload from prefix-cache entries of the old
   * weights (vllm#42125), so a name is never given other weights. vLLM answers a success in plain text. Then one
   * token is generated with it: vLLM applies an adapter's weights at its first request (on CPU that first request
   * took 20 s and more on a busy machine), which must not be a user's.
   */
  async load(target: EngineTarget, name: string, adapterPath: string): Promise<void> {
    await callJson(SERVICE, {
      method: 'POST',
      url: route(target.baseUrl, 'load_lora_adapter'),
      body: { lora_name: name, lora_path: adapterPath },
      bearer: target.apiKey,
      // A server busy generating answers the load when its queue reaches it.
      timeoutMs: 120_000,
    });
    await callJson(SERVICE, {
      method: 'POST',
      url: route(target.baseUrl, 'chat/completions'),
      body: { model: name, messages: WARM_UP_MESSAGES, max_tokens: 1, priority: WARM_UP_PRIORITY },
      bearer: target.apiKey,
      timeoutMs: 120_000,
    });
  }

  /** Unloads; an endpoint that no longer has it (404) is fine. */
  async unload(target: EngineTarget, name: string): Promise<void> {
    await callJson(SERVICE, {
      method: 'POST',
      url: route(target.baseUrl, 'unload_lora_adapter'),
      body: { lora_name: name },
      bearer: target.apiKey,
      timeoutMs: 30_000,
    }).catch((error: unknown) => {
      if (error instanceof ServiceCallError && error.status === 404) return;
      throw error;
    });
  }
}
