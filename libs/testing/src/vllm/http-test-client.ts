import { createSseDataParser } from '@echoloop/openai-compat';

/** Bare HTTP helpers for this folder's own specs: they need to see exactly what goes over the wire. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export interface StreamedResponse {
  status: number;
  headers: Headers;
  /** Every `data:` payload, `[DONE]` included, in order. */
  payloads: string[];
}

export async function postStreaming(url: string, body: unknown): Promise<StreamedResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parser = createSseDataParser();
  const payloads: string[] = [];
  const decoder = new TextDecoder();
  for await (const bytes of response.body ?? []) {
    payloads.push(...parser.push(decoder.decode(bytes, { stream: true })));
  }
  return { status: response.status, headers: response.headers, payloads };
}

/** Chunks as JSON, without the `[DONE]` marker. */
export function jsonChunks(payloads: readonly string[]): Array<Record<string, unknown>> {
  return payloads.filter((payload) => payload !== '[DONE]').map((payload) => JSON.parse(payload));
}

export interface OpenStream {
  status: number;
  headers: Headers;
  /** Resolves with the next `data:` payload, or undefined when the stream ended; rejects if it broke. */
  nextPayload(): Promise<string | undefined>;
}

/** Starts a streaming request and hands its payloads out one at a time, for timing and fault specs. */
export async function openStream(url: string, body: unknown, signal?: AbortSignal): Promise<OpenStream> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.body) throw new Error('response without a body');
  const reader = response.body.getReader();
  const parser = createSseDataParser();
  const decoder = new TextDecoder();
  const pending: string[] = [];
  return {
    status: response.status,
    headers: response.headers,
    async nextPayload() {
      while (pending.length === 0) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        pending.push(...parser.push(decoder.decode(value, { stream: true })));
      }
      return pending.shift();
    },
  };
}
