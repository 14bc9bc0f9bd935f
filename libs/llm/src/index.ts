// Streaming client for OpenAI-compatible (vLLM) endpoints
export * from './client';
export type { ChatMessage, FinishReason, ResponseFormat } from '@echoloop/openai-compat';
