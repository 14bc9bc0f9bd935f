export type ModelErrorCode =
  | 'model_timeout' // no first token, or the stream went quiet, within the configured time
  | 'model_unavailable' // connection refused/reset, 5xx, 429, or the circuit is open
  | 'model_rejected' // the server refused the request itself (4xx): retrying will not help
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
