import {
  loraAlreadyLoadedError,
  loraLoadFailedError,
  loraNotLoadedError,
  loraPathNotFoundError,
  type OpenAiErrorBody,
} from '@echoloop/openai-compat';
import type { Logger } from 'pino';
import { resolveAdapterFile } from './adapter-file';
import { AdapterLoadError, type ChatEngine } from './chat-engine';
import { readLoraState, writeLoraState } from './lora-state';

export interface LoraAdapter {
  name: string;
  /** The `lora_path` it was loaded from, reported as its `root` in /v1/models. */
  path: string;
  /** Unix seconds of the load. */
  created: number;
}

export interface LoraAdaptersOptions {
  engine: Pick<ChatEngine, 'loadAdapter' | 'unloadAdapter'>;
  /** Most adapters loaded at once, like vLLM's --max-loras. */
  maxLoras: number;
  /** JSON file keeping the name → path registry across restarts; no persistence when absent. */
  statePath?: string;
  logger: Logger;
}

/**
 * The LoRA adapters the server serves, with vLLM's rules and error bodies. Not reentrant: callers serialise
 * load, unload and restore with generation.
 */
export class LoraAdapters {
  private readonly adapters = new Map<string, LoraAdapter>();

  constructor(private readonly options: LoraAdaptersOptions) {}

  has(name: string): boolean {
    return this.adapters.has(name);
  }

  list(): LoraAdapter[] {
    return [...this.adapters.values()];
  }

  /** Undefined once loaded (and persisted), else the error to answer with. */
  async load(name: string, path: string, inPlace: boolean): Promise<OpenAiErrorBody | undefined> {
    const error = await this.loadIntoEngine(name, path, inPlace);
    if (!error) await this.persist();
    return error;
  }

  async unload(name: string): Promise<OpenAiErrorBody | undefined> {
    if (!this.adapters.has(name)) return loraNotLoadedError(name);
    await this.options.engine.unloadAdapter(name);
    this.adapters.delete(name);
    await this.persist();
    return undefined;
  }

  /** Loads the persisted adapters; one that cannot be loaded any more is skipped with a warning. */
  async restore(): Promise<void> {
    const { statePath, logger } = this.options;
    if (statePath === undefined) return;
    let entries: Array<{ name: string; path: string }>;
    try {
      entries = (await readLoraState(statePath)).adapters;
    } catch (error) {
      logger.warn({ statePath, err: error }, 'LoRA adapter state unreadable; starting without adapters');
      return;
    }
    for (const { name, path } of entries) {
      try {
        const error = await this.loadIntoEngine(name, path, false);
        if (error) logger.warn({ name, path, reason: error.error.message }, 'LoRA adapter not restored');
        else logger.info({ name, path }, 'LoRA adapter restored');
      } catch (error) {
        logger.warn({ name, path, err: error }, 'LoRA adapter not restored');
      }
    }
  }

  private async loadIntoEngine(
    name: string,
    path: string,
    inPlace: boolean,
  ): Promise<OpenAiErrorBody | undefined> {
    const replacing = this.adapters.has(name);
    if (replacing && !inPlace) return loraAlreadyLoadedError(name);
    // A path with no adapter is said first: it is wrong whatever else is loaded.
    const file = resolveAdapterFile(path);
    if (file === undefined) return loraPathNotFoundError(name, path);
    const { maxLoras } = this.options;
    if (!replacing && this.adapters.size >= maxLoras) {
      return loraLoadFailedError(
        name,
        `${maxLoras} LoRA adapters are loaded, the most MODEL_MAX_LORAS allows; unload one first.`,
      );
    }
    try {
      await this.options.engine.loadAdapter(name, file);
    } catch (error) {
      if (error instanceof AdapterLoadError) return loraLoadFailedError(name, error.message);
      throw error;
    }
    this.adapters.set(name, { name, path, created: Math.floor(Date.now() / 1000) });
    return undefined;
  }

  /** A registry that cannot be written still serves; the error is logged, as the next write may succeed. */
  private async persist(): Promise<void> {
    const { statePath, logger } = this.options;
    if (statePath === undefined) return;
    const adapters = this.list().map(({ name, path }) => ({ name, path }));
    try {
      await writeLoraState(statePath, { adapters });
    } catch (error) {
      logger.error({ statePath, err: error }, 'LoRA adapter state not written');
    }
  }
}
