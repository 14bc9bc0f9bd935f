// OpenAI-compatible (vLLM) wire format
export * from './openai-compat';

// Streaming client for OpenAI-compatible (vLLM) endpoints
export * from './client';
