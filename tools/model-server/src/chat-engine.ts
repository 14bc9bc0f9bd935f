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
}
