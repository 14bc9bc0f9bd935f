// Streaming client for OpenAI-compatible (vLLM) endpoints
export * from './client';
export type { FinishReason, ResponseFormat } from '@echoloop/openai-compat';
