// Clients that time one streamed reply as a user would see it: the first token, the gaps between tokens and the
// whole reply. Shared by the turn-path benchmarks (gateway-overhead.ts, turn-path-peers.ts).
import { io, type Socket } from 'socket.io-client';
import { summarize } from './stats';

export interface StreamTiming {
  ttftMs: number;
  gapsMs: number[];
  totalMs: number;
}

/** Records token arrivals from the moment the request was sent. */
class TokenClock {
  private readonly started = performance.now();
  private last = 0;
  private ttftMs = 0;
  private readonly gapsMs: number[] = [];

  token(): void {
    const now = performance.now();
    if (!this.ttftMs) this.ttftMs = now - this.started;
    else this.gapsMs.push(now - this.last);
    this.last = now;
  }

  timing(): StreamTiming {
    return { ttftMs: this.ttftMs, gapsMs: this.gapsMs, totalMs: performance.now() - this.started };
  }
}

/** Calls `onEvent` with each Server-Sent Event of a streamed response body, as its raw text. */
async function readEvents(res: Response, onEvent: (event: string) => void): Promise<void> {
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const events = buffer.split('\n\n');
    buffer = events.pop() ?? '';
    events.forEach(onEvent);
  }
}

/** A chunk that carries text (not the role-only first chunk nor the usage chunk); tolerant of `"content": "x"`. */
const CONTENT_CHUNK = /"content":\s?"[^"]/;

/**
 * One streaming chat completion against an OpenAI-compatible base URL (the model server itself, or a proxy in
 * front of it); `headers` carries what a proxy needs to route the call.
 */
export async function openAiStream(
  baseUrl: string,
  headers: Record<string, string> = {},
  timeoutMs = 120_000,
  request: { model?: string; max_tokens?: number } = {},
): Promise<StreamTiming> {
  const clock = new TokenClock();
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer none', ...headers },
    body: JSON.stringify({
      model: 'bench-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hello' }],
      ...request,
    }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  await readEvents(res, (event) => {
    if (CONTENT_CHUNK.test(event)) clock.token();
  });
  return clock.timing();
}

export interface BenchUser {
  socket: Socket;
  conversationId: string;
  accessToken: string;
}

/** One turn over socket.io (`message:send`), timed from the emit to `message:done`. */
export async function socketTurn(
  user: BenchUser,
  clientMessageId: string,
  timeoutMs = 120_000,
  content = 'hello',
): Promise<StreamTiming> {
  const clock = new TokenClock();
  const onDelta = () => clock.token();
  user.socket.on('message:delta', onDelta);
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('socket turn timed out')), timeoutMs);
      user.socket.once('message:done', () => resolve());
      user.socket.once('message:error', (error: { code: string }) => reject(new Error(error.code)));
      user.socket.emit('message:send', {
        conversationId: user.conversationId,
        content,
        clientMessageId,
      });
    });
  } finally {
    clearTimeout(timer);
    user.socket.off('message:delta', onDelta);
  }
  return clock.timing();
}

/** One turn over HTTP with Server-Sent Events (`POST /v1/conversations/:id/messages`), to `message:done`. */
export async function sseTurn(
  gatewayUrl: string,
  user: BenchUser,
  clientMessageId: string,
  timeoutMs = 120_000,
): Promise<StreamTiming> {
  const clock = new TokenClock();
  const res = await fetch(`${gatewayUrl}/v1/conversations/${user.conversationId}/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${user.accessToken}`,
    },
    body: JSON.stringify({ content: 'hello', clientMessageId }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  let failure: string | undefined;
  let done = false;
  await readEvents(res, (event) => {
    if (event.startsWith('event: message:delta')) clock.token();
    else if (event.startsWith('event: message:done')) done = true;
    else if (event.startsWith('event: message:error')) failure = event;
  });
  if (failure || !done) throw new Error(failure ?? 'SSE stream ended without message:done');
  return clock.timing();
}

/** Registers `count` users, each with a conversation and a connected socket. */
export async function createUsers(
  gatewayUrl: string,
  count: number,
  characterId: string,
): Promise<BenchUser[]> {
  const call = async (route: string, body: unknown, token?: string) => {
    const res = await fetch(`${gatewayUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, string>;
  };
  const users: BenchUser[] = [];
  for (let i = 0; i < count; i++) {
    const { accessToken = '' } = await call('/v1/auth/register', {
      email: `bench-${i}-${Date.now()}@example.com`,
      password: 'benchmark-password',
      displayName: `Bench ${i}`,
    });
    const conversation = await call('/v1/conversations', { characterId }, accessToken);
    const socket = io(`${gatewayUrl}/chat`, { auth: { token: accessToken }, transports: ['websocket'] });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    users.push({ socket, conversationId: conversation['id'] ?? '', accessToken });
  }
  return users;
}

export function summarizeTimings(timings: StreamTiming[]) {
  return {
    ttft: summarize(timings.map((t) => t.ttftMs)),
    gap: summarize(timings.flatMap((t) => t.gapsMs)),
    total: summarize(timings.map((t) => t.totalMs)),
  };
}
