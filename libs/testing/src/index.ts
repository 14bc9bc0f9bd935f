// Deterministic vLLM-compatible test server
export * from './vllm';
