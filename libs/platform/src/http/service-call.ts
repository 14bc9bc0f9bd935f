/**
 * A call to another service (with its service API key) failed. `transient`: the service was away or overloaded (connection refused, timeout,
 * 5xx): the stage is tried again on the driver's next round. Otherwise the request itself was refused.
 */
export class ServiceCallError extends Error {
  override readonly name = 'ServiceCallError';
  constructor(
    readonly service: string,
    readonly status: number | null,
    message: string,
    readonly code?: string,
    /** The refusal's body as the service sent it (parsed when JSON), so a proxy can relay it as it is. */
    readonly body?: unknown,
    /** No answer within the call's timeout: unlike a refused connection, the request may have run. */
    readonly timedOut = false,
  ) {
    super(`${service}: ${message}`);
  }

  get transient(): boolean {
    return this.status === null || this.status >= 500 || this.status === 429;
  }
}

export interface JsonCall {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  body?: unknown;
  apiKey?: string | undefined;
  /** An OpenAI-compatible server's key (vLLM checks `Authorization: Bearer`). */
  bearer?: string | undefined;
  timeoutMs?: number;
}

/** One JSON request; the body parsed (or the text when not JSON). Refusals become ServiceCallError. */
export async function callJson<T>(service: string, call: JsonCall): Promise<T> {
  let response: Response;
  try {
    response = await fetch(call.url, {
      method: call.method,
      headers: {
        accept: 'application/json',
        ...(call.body !== undefined && { 'content-type': 'application/json' }),
        ...(call.apiKey && { 'x-api-key': call.apiKey }),
        ...(call.bearer && { authorization: `Bearer ${call.bearer}` }),
      },
      ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
      signal: AbortSignal.timeout(call.timeoutMs ?? 30_000),
    });
  } catch (error) {
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    throw new ServiceCallError(
      service,
      null,
      `unreachable (${(error as Error).message})`,
      undefined,
      undefined,
      timedOut,
    );
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // A plain-text answer (vLLM's LoRA routes answer text): kept as it is.
  }
  if (!response.ok) {
    const error = (body as { error?: { code?: string; message?: string } } | undefined)?.error;
    const message = error?.message ?? (typeof body === 'string' ? body : text).slice(0, 500);
    throw new ServiceCallError(service, response.status, `${response.status} ${message}`, error?.code, body);
  }
  return body as T;
}
