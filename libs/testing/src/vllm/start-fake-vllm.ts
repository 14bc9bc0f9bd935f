import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildErrorResponse, invalidJsonErrorResponse } from '@echoloop/openai-compat';
import { handleBatchChatCompletion, handleChatCompletion } from './chat-completion-route';
import type { FakeVllm, FakeVllmOptions, RecordedRequest } from './fake-vllm-types';
import { FakeVllmState } from './fake-vllm-state';
import { readBodyText, sendError, sendJson, type Exchange } from './http-exchange';
import { handleLoadLora, handleUnloadLora } from './lora-routes';
import { handleListModels } from './models-route';

type Route = (exchange: Exchange, body: unknown, state: FakeVllmState) => void | Promise<void>;

const routes: Record<string, { method: 'GET' | 'POST'; handle: Route }> = {
  '/health': { method: 'GET', handle: (exchange) => sendHealthy(exchange) },
  '/v1/models': { method: 'GET', handle: (exchange, _body, state) => handleListModels(exchange, state) },
  '/v1/chat/completions': { method: 'POST', handle: handleChatCompletion },
  '/v1/chat/completions/batch': { method: 'POST', handle: handleBatchChatCompletion },
  '/v1/load_lora_adapter': { method: 'POST', handle: handleLoadLora },
  '/v1/unload_lora_adapter': { method: 'POST', handle: handleUnloadLora },
};

/** A deterministic in-process stand-in for vLLM's OpenAI-compatible server. */
export async function startFakeVllm(options: FakeVllmOptions = {}): Promise<FakeVllm> {
  const state = new FakeVllmState(options);
  const requests: RecordedRequest[] = [];
  const idleWaiters: Array<() => void> = [];
  let inFlight = 0;
  let generating = 0;
  let closing = false;

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    // vLLM's load gauges (callers yielding to replies read them); a scrape is not a request a test asserts on.
    if (path === '/metrics') return void res.end(loadMetrics(state.model, generating));
    const generation = path.startsWith('/v1/chat/completions');
    if (generation) generating += 1;
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      headers: req.headers,
      body: undefined,
      aborted: false,
      completed: false,
    };
    requests.push(record);
    const controller = new AbortController();
    inFlight += 1;
    res.on('close', () => {
      record.completed = res.writableFinished;
      if (!res.writableFinished && !closing && record.fault !== 'failAfterTokens') record.aborted = true;
      controller.abort();
      if (generation) generating -= 1;
      inFlight -= 1;
      if (inFlight === 0) idleWaiters.splice(0).forEach((resolve) => resolve());
    });
    const exchange: Exchange = { req, res, record, signal: controller.signal };
    dispatch(exchange, state).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      const message = error instanceof Error ? error.message : String(error);
      sendError(exchange, buildErrorResponse({ status: 500, message }));
    });
  });

  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host}:${port}/v1`,
    model: state.model,
    requests,
    get loadedAdapters() {
      return [...state.adapters.values()].map((adapter) => ({ ...adapter }));
    },
    setReply: (reply) => state.setReply(reply),
    setFaults: (faults) => state.setFaults(faults),
    faultNextRequest: (faults) => state.queueFaults(faults),
    whenIdle: () =>
      inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    close: async () => {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

async function dispatch(exchange: Exchange, state: FakeVllmState): Promise<void> {
  const { req, record } = exchange;
  const text = await readBodyText(req);
  record.body = parseJsonOrText(text);
  const route = routes[record.path];
  if (!route) return sendJson(exchange, 404, { detail: 'Not Found' });
  if (state.apiKey !== undefined && record.path.startsWith('/v1') && !hasBearer(req, state.apiKey)) {
    // vLLM's AuthenticationMiddleware answers with exactly this body.
    return sendJson(exchange, 401, { error: 'Unauthorized' });
  }
  if (req.method !== route.method) return sendJson(exchange, 405, { detail: 'Method Not Allowed' });
  if (route.method === 'GET') return route.handle(exchange, undefined, state);
  if (!isJsonContentType(req)) {
    return sendError(
      exchange,
      buildErrorResponse({
        status: 400,
        type: 'Bad Request',
        message: "Unsupported Media Type: Only 'application/json' is allowed",
      }),
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return sendError(
      exchange,
      invalidJsonErrorResponse(error instanceof Error ? error.message : String(error)),
    );
  }
  return route.handle(exchange, body, state);
}

/** vLLM's Prometheus gauges of its load, as it writes them: generations in flight run, none waits. */
function loadMetrics(model: string, running: number): string {
  const labels = `{engine="0",model_name="${model}"}`;
  return [
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running${labels} ${running.toFixed(1)}`,
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting${labels} 0.0`,
    '',
  ].join('\n');
}

function sendHealthy(exchange: Exchange): void {
  exchange.record.status = 200;
  exchange.res.writeHead(200).end();
}

function hasBearer(req: IncomingMessage, apiKey: string): boolean {
  const [scheme, token] = (req.headers.authorization ?? '').split(' ', 2);
  return scheme?.toLowerCase() === 'bearer' && token === apiKey;
}

function isJsonContentType(req: IncomingMessage): boolean {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function parseJsonOrText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
