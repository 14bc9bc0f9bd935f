import { parseErrorResponse } from '@echoloop/openai-compat';

export type ModelErrorCode =
  | 'model_timeout' // no first token, or the stream went quiet, within the configured time
  | 'model_unavailable' // connection refused/reset, 5xx, 429, or the circuit is open
  | 'model_rejected' // the server refused the request itself (4xx): retrying will not help
  | 'model_not_served' // 404: the endpoint does not serve that model now (an adapter not loaded again yet)
  | 'model_stream_broken' // the stream failed after tokens were already delivered
  | 'cancelled'; // the caller aborted

/** Every failure of a model call, with whether the user may simply try again. */
export class ModelError extends Error {
  override readonly name = 'ModelError';

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * An OpenAI-compatible server's error answer: its own message (never the request), retryable for 5xx, 429, 408,
 * and for 404: the model is not served there now (vLLM forgets runtime-loaded adapters when it restarts, until the
 * adapter reconciler loads them again), so another endpoint or a later try may have it.
 */
export function modelErrorForStatus(status: number, body: string): ModelError {
  let message = `the model server answered ${status}`;
  try {
    const parsed: unknown = JSON.parse(body);
    // vLLM's shapes, or any `{"error": {"message": ...}}` a proxy in front of it sends.
    const detail =
      parseErrorResponse(parsed)?.message ??
      (parsed as { error?: { message?: unknown } } | null)?.error?.message;
    if (typeof detail === 'string') message = `${status} ${detail}`;
  } catch {
    // not JSON: the status says enough
  }
  if (status === 404) return new ModelError('model_not_served', message, true, status);
  const retryable = status >= 500 || status === 429 || status === 408;
  return new ModelError(retryable ? 'model_unavailable' : 'model_rejected', message, retryable, status);
}

/** A request that failed on the way (refused, reset, dropped mid-answer, timed out by a deadline): retryable. */
export function connectionError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError('model_unavailable', message, true);
}
