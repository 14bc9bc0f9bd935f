import type { Logger } from 'pino';

/** Everything one request's log line reports; handlers fill it in as they go. */
export interface RequestLogFields {
  method: string;
  path: string;
  status?: number;
  model?: string;
  stream?: boolean;
  promptTokens?: number;
  completionTokens?: number;
  finishReason?: string;
  queuedMs?: number;
  ttftMs?: number;
  aborted?: boolean;
  error?: string;
}

export function logRequest(logger: Logger, fields: RequestLogFields, startedAt: number): void {
  const durationMs = Math.round(performance.now() - startedAt);
  const level = fields.status !== undefined && fields.status >= 500 ? 'error' : 'info';
  logger[level]({ ...fields, durationMs }, 'request');
}
