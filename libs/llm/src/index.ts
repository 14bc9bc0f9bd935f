// Streaming client for OpenAI-compatible (vLLM) endpoints
export * from './client/index';
export type { FinishReason, ResponseFormat } from '@echoloop/openai-compat';
