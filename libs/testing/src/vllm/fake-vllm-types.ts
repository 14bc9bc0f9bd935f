import type { IncomingHttpHeaders } from 'node:http';
import type { ChatCompletionRequest } from '@echoloop/openai-compat';
import type { ReplySource } from './scripted-replies';

export interface FakeVllmFaults {
  /** Paces content tokens at this fixed rate (unpaced when absent). */
  tokensPerSecond?: number;
  /** Wait before the first token (after the response headers when streaming). */
  delayBeforeFirstTokenMs?: number;
  /** Answer with this HTTP error (vLLM's error body) instead of generating. */
  failWith?: { status: number; message: string; type?: string };
  /** Destroy the connection once this many content tokens have been sent. */
  failAfterTokens?: number;
  /** Stop sending once this many content tokens have been sent, keeping the connection open. */
  stallAfterTokens?: number;
  /** Generate past the request's `stop` strings, as a server (or model template) that does not honour them. */
  ignoreStop?: boolean;
}

export type FaultSource = FakeVllmFaults | ((request: ChatCompletionRequest) => FakeVllmFaults | undefined);

export interface LoraAdapter {
  name: string;
  path: string;
}

export interface FakeVllmOptions {
  /** Served base model name (vLLM's --served-model-name). Default 'fake-base-model'. */
  model?: string;
  /** Reported as the base model's `root` in /v1/models. Default: the model name. */
  modelRoot?: string;
  /** Default 4096. Requests whose prompt plus max_tokens exceed it get vLLM's 400. */
  maxModelLen?: number;
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>` (vLLM's --api-key). */
  apiKey?: string;
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** How long an idle connection stays open, like vLLM's VLLM_HTTP_TIMEOUT_KEEP_ALIVE. Default 5000. */
  keepAliveTimeoutMs?: number;
  /** Default: echoes the last user message. */
  reply?: ReplySource;
  faults?: FaultSource;
  /** Adapters loaded at start, like vLLM's --lora-modules. */
  loraAdapters?: readonly LoraAdapter[];
  /** Reject /v1/load_lora_adapter with vLLM's 404 when lora_path does not exist on disk. */
  checkAdapterPaths?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, or the raw text when it was not JSON; undefined for an empty body. */
  body: unknown;
  /** Status sent; undefined while nothing has been sent. */
  status?: number;
  /** The client went away before the response was complete. */
  aborted: boolean;
  /** The response was sent completely. */
  completed: boolean;
  /** The fault that shaped the response, if any. */
  fault?: 'failWith' | 'failAfterTokens' | 'stallAfterTokens';
}

export interface FakeVllm {
  /** Base URL ending in /v1, as OpenAI clients expect. */
  readonly url: string;
  readonly model: string;
  readonly requests: readonly RecordedRequest[];
  readonly loadedAdapters: readonly LoraAdapter[];
  setReply(reply: ReplySource): void;
  setFaults(faults: FaultSource | undefined): void;
  /** Faults for the next chat completion only, merged over the server's; queued in call order. */
  faultNextRequest(faults: FakeVllmFaults): void;
  /** Resolves once no response is in flight (e.g. after a client abort has been noticed). */
  whenIdle(): Promise<void>;
  close(): Promise<void>;
}
