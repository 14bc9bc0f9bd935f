import type { ChatMessage, Finish } from '@echoloop/openai-compat';

export interface GenerationRequest {
  messages: readonly ChatMessage[];
  maxTokens: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  stop: readonly string[];
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

/** What the HTTP layer needs from a model; the real one wraps node-llama-cpp. */
export interface ChatEngine {
  readonly contextSize: number;
  /** Tokens of the prompt the chat template renders from these messages. */
  countPromptTokens(messages: readonly ChatMessage[]): number;
  /** Not reentrant: the caller serialises calls. */
  generate(request: GenerationRequest): Promise<GenerationResult>;
}
