import { type ContractExchange, fill, type Placeholders, unfill } from './exchanges';

/** One answer as recorded: its status, media type and body, with the placeholders put back. */
export interface ContractAnswer {
  status: number;
  mediaType: string;
  /** A JSON body, parsed. */
  json?: unknown;
  /** A plain-text body. */
  text?: string;
  /** An event stream: each `data:` payload, parsed, and `[DONE]` as the string. */
  events?: unknown[];
}

/** Sends one exchange to the server at `origin` (no `/v1`) and reads its answer. */
export async function askServer(
  origin: string,
  exchange: ContractExchange,
  placeholders: Placeholders,
): Promise<ContractAnswer> {
  const body =
    exchange.body === undefined
      ? undefined
      : typeof exchange.body === 'string'
        ? exchange.body
        : JSON.stringify(fill(exchange.body, placeholders));
  const res = await fetch(`${origin}${exchange.path}`, {
    method: exchange.method,
    ...(body !== undefined && { body, headers: { 'content-type': 'application/json' } }),
  });
  const mediaType = (res.headers.get('content-type') ?? '').replace(/;.*/, '').trim();
  const text = unfill(await res.text(), placeholders);
  const answer: ContractAnswer = { status: res.status, mediaType };
  if (mediaType === 'application/json') answer.json = JSON.parse(text);
  else if (mediaType === 'text/event-stream')
    answer.events = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6))
      .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
  else answer.text = text;
  return answer;
}

/** A value's shape: its keys (sorted) and the types of its leaves; an array by the distinct shapes of its items. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return 'null';
  if (Array.isArray(value))
    return [...new Set(value.map((item) => JSON.stringify(shapeOf(item))))].map((shape) => JSON.parse(shape));
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
    );
  return typeof value;
}

/** An event stream's shapes, a run of equal ones counted once (the number of content chunks is the model's). */
const streamShape = (events: unknown[]) =>
  events
    .map((event) => JSON.stringify(shapeOf(event)))
    .filter((shape, i, all) => shape !== all[i - 1])
    .map((shape) => JSON.parse(shape) as unknown);

const errorOf = (json: unknown) =>
  (json as { error?: { message?: unknown; type?: unknown; code?: unknown } } | undefined)?.error;

/**
 * How the test server's answer differs from the engine's: status, media type, the body's shape, error types and
 * codes, plain text word for word, and messages word for word where the exchange asks. Model text is not
 * compared (the test server's replies are scripted); the shape of every chunk that carries it is.
 */
export function differences(
  exchange: ContractExchange,
  engine: ContractAnswer,
  test: ContractAnswer,
): string[] {
  const problems: string[] = [];
  const differ = (what: string, a: unknown, b: unknown) => {
    const [left, right] = [JSON.stringify(a), JSON.stringify(b)];
    if (left !== right) problems.push(`${exchange.name}: ${what}: engine ${left}, test server ${right}`);
  };
  differ('status', engine.status, test.status);
  differ('media type', engine.mediaType, test.mediaType);
  if (engine.text !== undefined) differ('text', engine.text, test.text);
  if (engine.events) differ('stream shape', streamShape(engine.events), streamShape(test.events ?? []));
  if (engine.json !== undefined) {
    differ('body shape', shapeOf(engine.json), shapeOf(test.json));
    const [a, b] = [errorOf(engine.json), errorOf(test.json)];
    if (a) {
      differ('error type', a.type, b?.type);
      differ('error code', a.code, b?.code);
      if (exchange.exactMessage) differ('error message', a.message, b?.message);
    }
  }
  return problems;
}
