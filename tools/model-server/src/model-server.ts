import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  buildAdapterModelCard,
  buildBaseModelCard,
  buildErrorResponse,
  buildModelList,
  invalidJsonErrorResponse,
  type ModelCard,
  type ModelList,
} from '@echoloop/openai-compat';
import type { Logger } from 'pino';
import type { ChatEngine } from './chat-engine';
import {
  handleBatchChatCompletions,
  handleChatCompletions,
  type ChatCompletionsDeps,
} from './chat-completions-handler';
import { isJsonContentType, readBodyText, sendError, sendJson, type Exchange } from './http-exchange';
import { LoraAdapters, type LoraAdapter } from './lora-adapters';
import { handleLoadLora, handleUnloadLora, type LoraRouteDeps } from './lora-routes';
import { logRequest, type RequestLogFields } from './request-log';
import { SerialQueue } from './serial-queue';

export interface ModelServerOptions {
  engine: ChatEngine;
  modelName: string;
  /** Reported as the model's `root` in /v1/models (vLLM reports the model path). */
  modelRoot: string;
  logger: Logger;
  /** The LoRA adapters served beside the base model (restored beforehand); default: none, up to 4, not persisted. */
  adapters?: LoraAdapters;
}

interface ServerContext {
  chat: ChatCompletionsDeps;
  lora: LoraRouteDeps;
  models: () => ModelList;
}

const knownPaths = new Set([
  '/health',
  '/v1/models',
  '/v1/chat/completions',
  '/v1/chat/completions/batch',
  '/v1/load_lora_adapter',
  '/v1/unload_lora_adapter',
]);

/** An OpenAI-compatible server in front of one chat engine and its LoRA adapters, answering like vLLM. */
export function createModelServer(options: ModelServerOptions): Server {
  const { engine, modelName, logger } = options;
  const queue = new SerialQueue();
  const adapters = options.adapters ?? new LoraAdapters({ engine, maxLoras: 4, logger });
  const baseCard = buildBaseModelCard({
    id: modelName,
    root: options.modelRoot,
    maxModelLen: engine.contextSize,
    created: Math.floor(Date.now() / 1000),
  });
  const context: ServerContext = {
    chat: { engine, queue, modelName, adapters },
    lora: { adapters, queue },
    models: () =>
      buildModelList([baseCard, ...adapters.list().map((adapter) => adapterCard(adapter, modelName))]),
  };
  return createServer((req, res) => serve(req, res, context, logger));
}

function adapterCard(adapter: LoraAdapter, baseModel: string): ModelCard {
  return buildAdapterModelCard({ id: adapter.name, path: adapter.path, baseModel, created: adapter.created });
}

function serve(req: IncomingMessage, res: ServerResponse, context: ServerContext, logger: Logger): void {
  const startedAt = performance.now();
  const log: RequestLogFields = {
    method: req.method ?? 'GET',
    path: new URL(req.url ?? '/', 'http://localhost').pathname,
  };
  const controller = new AbortController();
  const closed = new Promise<void>((resolve) =>
    res.on('close', () => {
      if (!res.writableFinished) {
        log.aborted = true;
        controller.abort();
      }
      resolve();
    }),
  );
  const exchange: Exchange = { req, res, signal: controller.signal, log };
  const handled = route(exchange, context).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    if (!res.headersSent) return sendError(exchange, buildErrorResponse({ status: 500, message }));
    log.error = message;
    res.destroy();
  });
  // Logged once both are over, so an aborted generation reports how far it got.
  void Promise.all([handled, closed]).then(() => logRequest(logger, log, startedAt));
}

async function route(exchange: Exchange, context: ServerContext): Promise<void> {
  const { method, path } = exchange.log;
  if (method === 'GET' && path === '/health') {
    exchange.log.status = 200;
    exchange.res.writeHead(200).end();
  } else if (method === 'GET' && path === '/v1/models') {
    sendJson(exchange, 200, context.models());
  } else if (method === 'POST' && path === '/v1/chat/completions') {
    const body = await readJsonBody(exchange);
    if (body.ok) await handleChatCompletions(exchange, body.value, context.chat);
  } else if (method === 'POST' && path === '/v1/chat/completions/batch') {
    const body = await readJsonBody(exchange);
    if (body.ok) await handleBatchChatCompletions(exchange, body.value, context.chat);
  } else if (method === 'POST' && path === '/v1/load_lora_adapter') {
    const body = await readJsonBody(exchange);
    if (body.ok) await handleLoadLora(exchange, body.value, context.lora);
  } else if (method === 'POST' && path === '/v1/unload_lora_adapter') {
    const body = await readJsonBody(exchange);
    if (body.ok) await handleUnloadLora(exchange, body.value, context.lora);
  } else {
    await readBodyText(exchange.req);
    if (knownPaths.has(path)) sendJson(exchange, 405, { detail: 'Method Not Allowed' });
    else sendJson(exchange, 404, { detail: 'Not Found' });
  }
}

async function readJsonBody(exchange: Exchange): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const text = await readBodyText(exchange.req);
  if (!isJsonContentType(exchange.req)) {
    sendError(
      exchange,
      buildErrorResponse({
        status: 400,
        type: 'Bad Request',
        message: "Unsupported Media Type: Only 'application/json' is allowed",
      }),
    );
    return { ok: false };
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    sendError(exchange, invalidJsonErrorResponse(error instanceof Error ? error.message : String(error)));
    return { ok: false };
  }
}
