import type { ChatMessage, Finish, ResponseFormat } from '@echoloop/openai-compat';

export interface GenerationRequest {
  messages: readonly ChatMessage[];
  maxTokens: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  stop: readonly string[];
  /** Constrains the output, as vLLM's guided decoding does; absent or `text` leaves it free. */
  responseFormat?: ResponseFormat;
  /** The loaded LoRA adapter to apply, by name; absent for the base model. */
  adapter?: string;
  signal: AbortSignal;
  onText: (text: string) => void;
}

export interface GenerationResult {
  text: string;
  finish: Finish;
  completionTokens: number;
  /** The client went away and generation stopped early. */
  aborted: boolean;
}

/** A `response_format` the engine cannot honour: the client's fault, so a 400. */
export class ResponseFormatError extends Error {
  override readonly name = 'ResponseFormatError';
}

/** A LoRA adapter the engine could not load (not a LoRA, or not one for this model): the client's fault. */
export class AdapterLoadError extends Error {
  override readonly name = 'AdapterLoadError';
}

/** What the HTTP layer needs from a model; the real one wraps node-llama-cpp. */
export interface ChatEngine {
  readonly contextSize: number;
  /** Tokens of the prompt the chat template renders from these messages. */
  countPromptTokens(messages: readonly ChatMessage[]): number;
  /**
   * Readies what the format needs (a compiled grammar) before any response is sent; rejects with
   * ResponseFormatError when it cannot be honoured.
   */
  prepareResponseFormat(format: ResponseFormat): Promise<void>;
  /** Not reentrant: the caller serialises calls. */
  generate(request: GenerationRequest): Promise<GenerationResult>;
  /**
   * Loads the LoRA adapter in `file` (a GGUF LoRA) under `name`, replacing one of that name only once the new
   * one is ready; rejects with AdapterLoadError when it cannot be loaded. Serialised with `generate`.
   */
  loadAdapter(name: string, file: string): Promise<void>;
  /** Frees the adapter's memory; nothing happens for a name that is not loaded. Serialised with `generate`. */
  unloadAdapter(name: string): Promise<void>;
}
