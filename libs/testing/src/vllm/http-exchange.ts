import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAiErrorBody } from '@echoloop/openai-compat';
import type { RecordedRequest } from './fake-vllm-types';

/** One request/response pair, with the record tests read and a signal that fires if the client leaves. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  signal: AbortSignal;
}

export function writeHead(exchange: Exchange, status: number, headers: Record<string, string>): void {
  exchange.record.status = status;
  exchange.res.writeHead(status, headers);
}

export function sendJson(exchange: Exchange, status: number, body: unknown): void {
  writeHead(exchange, status, { 'content-type': 'application/json' });
  exchange.res.end(JSON.stringify(body));
}

export function sendError(exchange: Exchange, body: OpenAiErrorBody): void {
  sendJson(exchange, body.error.code, body);
}

/** vLLM answers its LoRA routes' successes as a bare body, with no Content-Type at all. */
export function sendText(exchange: Exchange, status: number, text: string): void {
  writeHead(exchange, status, {});
  exchange.res.end(text);
}

/** Writes, then waits for the socket to drain if it is backed up (or for the client to leave). */
export async function writeChunk(exchange: Exchange, text: string): Promise<void> {
  if (exchange.res.write(text) || exchange.signal.aborted) return;
  await once(exchange.res, 'drain', { signal: exchange.signal }).catch(() => undefined);
}

export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Resolves after `ms`, or as soon as the signal aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
