import pino from 'pino';

/**
 * Error fields that carry user data: a TypeORM/pg error holds the SQL, its parameters (message text, replies,
 * whole events, password hashes) and the driver's error with the row's values in `detail`.
 */
const DATA_FIELDS = new Set([
  'parameters',
  'query',
  'driverError',
  'detail',
  'where',
  'internalQuery',
  'hint',
]);
const MAX_DEPTH = 4;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Route words (`v1`, `conversations`, `api-keys`) and numbers; anything else in a path may be user text. */
const ROUTE_WORD = /^(?:[a-z][a-z0-9-]{0,31}|[0-9]{1,12})$/;

/** An error as a log may show it: type, message, stack and codes, never the data it was raised about. */
export function errorSerializer(value: unknown): unknown {
  if (value instanceof Error) return scrub(pino.stdSerializers.err(value), 0);
  if (typeof value === 'object' && value !== null) return scrub(value as Record<string, unknown>, 0);
  return value;
}

function scrub(source: Record<string, unknown>, depth: number): Record<string, unknown> {
  const isDatabaseError = 'driverError' in source || 'query' in source || 'severity' in source;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (DATA_FIELDS.has(key)) continue;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      out[key] = depth < MAX_DEPTH ? scrub(value as Record<string, unknown>, depth + 1) : '[object]';
    else out[key] = value;
  }
  if (isDatabaseError && typeof out['message'] === 'string') {
    // PostgreSQL quotes the offending value after a colon: "invalid input syntax for type uuid: \"...\"".
    const message = withoutQuotedValue(out['message']);
    if (typeof out['stack'] === 'string') out['stack'] = replaceStackMessage(out['stack'], message);
    out['message'] = message;
  }
  return out;
}

function withoutQuotedValue(message: string): string {
  const colon = message.indexOf(': ');
  return colon === -1 ? message : message.slice(0, colon);
}

function replaceStackMessage(stack: string, message: string): string {
  const frames = stack.indexOf('\n    at ');
  const head = stack.slice(0, stack.indexOf(':') + 1 || 0) || 'Error:';
  return `${head} ${message}${frames === -1 ? '' : stack.slice(frames)}`;
}

/** A request as logged: its id, method and path; never the query string, headers or body. */
export function requestSerializer(req: {
  id?: unknown;
  method?: string;
  url?: string;
}): Record<string, unknown> {
  return { id: req.id, method: req.method, path: loggablePath(req.url ?? '') };
}

export function responseSerializer(res: { statusCode?: number }): Record<string, unknown> {
  return { statusCode: res.statusCode };
}

/** The path without its query, each segment that is neither an id nor a route word replaced by `:value`. */
export function loggablePath(url: string): string {
  const path = url.split(/[?#]/, 1)[0] ?? '';
  return path
    .split('/')
    .map((segment) => (segment === '' || UUID.test(segment) || ROUTE_WORD.test(segment) ? segment : ':value'))
    .join('/');
}
