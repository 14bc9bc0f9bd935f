import { buildErrorResponse, type OpenAiErrorBody } from './error-response';

/**
 * vLLM's 400 for a prompt that does not fit the context window, or leaves no room for max_tokens;
 * undefined when the request fits.
 */
export function contextLengthError(
  promptTokens: number,
  maxTokens: number | undefined,
  maxModelLen: number,
): OpenAiErrorBody | undefined {
  if (promptTokens >= maxModelLen) {
    return buildErrorResponse({
      status: 400,
      message:
        `This model's maximum context length is ${maxModelLen} tokens. However, your request has ` +
        `${promptTokens} input tokens. Please reduce the length of the input messages.`,
      param: 'messages',
    });
  }
  if (maxTokens !== undefined && promptTokens + maxTokens > maxModelLen) {
    return buildErrorResponse({
      status: 400,
      message:
        `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context ` +
        `length is ${maxModelLen} tokens and your request has ${promptTokens} input tokens ` +
        `(${maxTokens} > ${maxModelLen} - ${promptTokens}).`,
      param: 'max_tokens',
    });
  }
  return undefined;
}
