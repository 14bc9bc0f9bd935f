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
 * One streaming chat completion against an OpenAI-compatible base URL (the model server itself, a proxy in front
 * of it, or Echoloop's `/v1`); `headers` carries what a proxy needs to route the call. A stream is whole only once
 * `data: [DONE]` came with no `error` event before it (a failure once streaming is one, in OpenAI's shape).
 */
export async function openAiStream(
  baseUrl: string,
  headers: Record<string, string> = {},
  timeoutMs = 120_000,
  request: { model?: string; max_tokens?: number; messages?: { role: string; content: string }[] } = {},
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
  let failure: string | undefined;
  let done = false;
  await readEvents(res, (event) => {
    if (CONTENT_CHUNK.test(event)) clock.token();
    else if (/^data: \[DONE\]/m.test(event)) done = true;
    else if (/^data: \{"error"/m.test(event)) failure ??= event;
  });
  if (failure || !done) throw new Error(failure?.slice(0, 300) ?? 'stream ended without data: [DONE]');
  return clock.timing();
}

export interface BenchUser {
  socket: Socket;
  conversationId: string;
  accessToken: string;
  /** The user's personal key (`elp_...`) for `/v1/chat/completions`, when createUsers minted one. */
  apiKey?: string;
}

/**
 * One turn through Echoloop's OpenAI-compatible endpoint, as the user's personal key: the request the peers get
 * (one user message, streamed, usage included) with the bench's character as `model`. `opener` must be new each
 * time: a new history is a new conversation, so each stream is a new turn, the first message of a client's chat.
 * The same `hello` again would be a swipe of the earlier reply (a regenerate, not a new message); continuing the
 * user's own history instead would resend a transcript that grows through the run (a hundred messages and more
 * for the first user), a bigger request than the peers get and a longer comparison with the stored transcript.
 */
export function openAiTurn(gatewayUrl: string, user: BenchUser, model: string, opener: string) {
  if (!user.apiKey) throw new Error('the bench user has no personal key (createUsers with apiKeys)');
  return openAiStream(`${gatewayUrl}/v1`, { authorization: `Bearer ${user.apiKey}` }, 120_000, {
    model,
    messages: [{ role: 'user', content: opener }],
  });
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

/**
 * Registers `count` users, each with a conversation and a connected socket, and with `apiKeys` a personal key each
 * (`POST /v1/me/api-keys`; fails on a gateway without it).
 */
export async function createUsers(
  gatewayUrl: string,
  count: number,
  characterId: string,
  { apiKeys = false } = {},
): Promise<BenchUser[]> {
  const call = async (route: string, body: unknown, token?: string) => {
    const res = await fetch(`${gatewayUrl}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`POST ${route}: HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
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
    const apiKey = apiKeys
      ? (await call('/v1/me/api-keys', { name: 'bench' }, accessToken))['key']
      : undefined;
    const socket = io(`${gatewayUrl}/chat`, { auth: { token: accessToken }, transports: ['websocket'] });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    users.push({ socket, conversationId: conversation['id'] ?? '', accessToken, ...(apiKey && { apiKey }) });
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
