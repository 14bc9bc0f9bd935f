import { resolve } from 'node:path';
import type { LlamaChat, LlamaContext, LlamaModel } from 'node-llama-cpp';
import { AdapterLoadError } from './chat-engine';

export interface OpenedChat {
  context: LlamaContext;
  chat: LlamaChat;
}

interface AdapterChat extends OpenedChat {
  /** The adapter's weights, owned by this chat alone (see takeCachedLora). */
  lora: Disposable | undefined;
}

interface Disposable {
  dispose(): Promise<void>;
}

/** One llama context per loaded LoRA adapter, the adapter attached at creation. */
export class LlamaAdapterChats {
  private readonly chats = new Map<string, AdapterChat>();

  constructor(
    private readonly model: LlamaModel,
    private readonly open: (loraFile: string) => Promise<OpenedChat>,
  ) {}

  async load(name: string, file: string): Promise<void> {
    let opened: OpenedChat;
    try {
      opened = await this.open(file);
    } catch (error) {
      throw new AdapterLoadError(error instanceof Error ? error.message : String(error));
    }
    const previous = this.chats.get(name);
    this.chats.set(name, { ...opened, lora: takeCachedLora(this.model, file) });
    if (previous) await dispose(previous);
  }

  async unload(name: string): Promise<void> {
    const entry = this.chats.get(name);
    if (!entry) return;
    this.chats.delete(name);
    await dispose(entry);
  }

  chat(name: string): LlamaChat {
    const entry = this.chats.get(name);
    if (!entry) throw new Error(`The model \`${name}\` does not exist.`);
    return entry.chat;
  }
}

async function dispose(entry: AdapterChat): Promise<void> {
  await entry.context.dispose();
  await entry.lora?.dispose();
}

/**
 * node-llama-cpp keeps every LoRA it loads in a per-model cache keyed by path until the model is disposed, so
 * an unloaded adapter's weights would stay in memory and a reload of a rewritten file would get the old ones.
 * Taking the adapter out of that (internal) cache once its context holds it makes each load read the file and
 * each unload free it. Should the internals change, this finds nothing and the cache behaves as documented.
 */
function takeCachedLora(model: LlamaModel, file: string): Disposable | undefined {
  const cache: unknown = Reflect.get(model, '_loraAdapters');
  if (!(cache instanceof Map)) return undefined;
  const key = resolve(process.cwd(), file);
  const lora: unknown = cache.get(key);
  cache.delete(key);
  return isDisposable(lora) ? lora : undefined;
}

function isDisposable(value: unknown): value is Disposable {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'dispose') === 'function';
}
