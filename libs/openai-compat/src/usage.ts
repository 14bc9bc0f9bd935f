/** What vLLM names its build in `system_fingerprint` (vllm-<version>-<hash>); ours says it is a stand-in. */
export const SYSTEM_FINGERPRINT = 'vllm-0.32.0-echoloop';

export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Present, as null, in whole completions (vLLM 0.32); absent from the usage chunk of a stream. */
  prompt_tokens_details?: null;
  completion_tokens_details?: null;
}

export function buildUsage(promptTokens: number, completionTokens: number): CompletionUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
