import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OpenAiErrorBody } from '@echoloop/openai-compat';
import type { RequestLogFields } from './request-log';

/** One request/response pair; `signal` aborts when the client goes away before the response is done. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  signal: AbortSignal;
  log: RequestLogFields;
}

export function sendJson(exchange: Exchange, status: number, body: unknown): void {
  exchange.log.status = status;
  exchange.res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function sendText(exchange: Exchange, status: number, text: string): void {
  exchange.log.status = status;
  exchange.res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

export function sendError(exchange: Exchange, body: OpenAiErrorBody): void {
  exchange.log.error = body.error.message;
  sendJson(exchange, body.error.code, body);
}

export function writeHead(exchange: Exchange, status: number, headers: Record<string, string>): void {
  exchange.log.status = status;
  exchange.res.writeHead(status, headers);
}

export async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function isJsonContentType(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}
