import fc from 'fast-check';
import http from 'node:http';
import type { Schema, SampleContext } from './json-schema-sample';
import { sampleOf } from './json-schema-sample';
import { hostileBody, hostilePathSegment, hostileValue, RAW_BODIES, type RawBody } from './hostile-values';
import { EDGES, type EdgeKind, typedFields, withField } from './type-edges';

export interface Operation {
  method: string;
  path: string;
  operation: Schema;
}

export interface SweepRequest {
  label: string;
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
}

export interface SweepResponse {
  status: number;
  contentType: string;
  text: string;
  timedOut: boolean;
}

type Mutation =
  | { kind: 'valid' }
  | { kind: 'field'; location: 'body' | 'query'; name: string; value: unknown }
  | { kind: 'edge'; location: 'body' | 'query' | 'path'; path: string[]; edge: EdgeKind; value: unknown }
  | { kind: 'path'; name: string; value: string }
  | { kind: 'body'; value: unknown }
  | { kind: 'extra-key'; key: string; value: unknown }
  | { kind: 'raw'; raw: RawBody }
  | { kind: 'file'; content: Uint8Array; filename: string };

const EXTRA_KEYS = ['__proto__', 'constructor', 'prototype', 'unknownField', '$where'];

export function operationsOf(document: { paths: Record<string, Record<string, Schema>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

export const operationKey = (op: Operation) => `${op.method.toUpperCase()} ${op.path}`;

const jsonBodySchema = (op: Operation): Schema | undefined =>
  op.operation['requestBody']?.content?.['application/json']?.schema;
const multipartSchema = (op: Operation): Schema | undefined =>
  op.operation['requestBody']?.content?.['multipart/form-data']?.schema;
const parametersOf = (op: Operation, where: 'path' | 'query'): Schema[] =>
  ((op.operation['parameters'] ?? []) as Schema[]).filter((p) => p['in'] === where);

/**
 * Every edge value of the database type of every date-time, uuid, number and cursor field of the operation (see
 * type-edges): each field meets them all, not a sample.
 */
function edgeMutations(op: Operation, resolve: (ref: string) => Schema): Mutation[] {
  const fields = [
    ...typedFields(jsonBodySchema(op), resolve).map((field) => ({ ...field, location: 'body' as const })),
    ...(['query', 'path'] as const).flatMap((location) =>
      parametersOf(op, location).flatMap((param) =>
        typedFields({ properties: { [param['name']]: param['schema'] } }, resolve).map((field) => ({
          ...field,
          location,
        })),
      ),
    ),
  ];
  return fields.flatMap(({ location, path, kind }) =>
    EDGES[kind].map((value): Mutation => ({ kind: 'edge', location, path, edge: kind, value })),
  );
}

/**
 * The hostile variations of one operation: values drawn by fast-check from a fixed seed, every edge of each typed
 * field's database type, and the body parser's failure modes.
 */
export function sweepMutations(
  op: Operation,
  seed: number,
  runs: number,
  resolve: (ref: string) => Schema,
): Mutation[] {
  const body = jsonBodySchema(op);
  const bodyFields = Object.keys((body?.['properties'] ?? {}) as Schema);
  const queryFields = parametersOf(op, 'query').map((p) => p['name'] as string);
  const pathFields = parametersOf(op, 'path').map((p) => p['name'] as string);
  const choices: fc.Arbitrary<Mutation>[] = [];
  if (bodyFields.length)
    choices.push(
      fc.record({
        kind: fc.constant('field' as const),
        location: fc.constant('body' as const),
        name: fc.constantFrom(...bodyFields),
        value: hostileValue,
      }),
    );
  if (queryFields.length)
    choices.push(
      fc.record({
        kind: fc.constant('field' as const),
        location: fc.constant('query' as const),
        name: fc.constantFrom(...queryFields),
        value: hostileValue,
      }),
    );
  if (pathFields.length)
    choices.push(
      fc.record({
        kind: fc.constant('path' as const),
        name: fc.constantFrom(...pathFields),
        value: hostilePathSegment,
      }),
    );
  if (body) {
    choices.push(fc.record({ kind: fc.constant('body' as const), value: hostileBody }));
    choices.push(
      fc.record({
        kind: fc.constant('extra-key' as const),
        key: fc.constantFrom(...EXTRA_KEYS),
        value: hostileValue,
      }),
    );
  }
  if (multipartSchema(op))
    choices.push(
      fc.record({
        kind: fc.constant('file' as const),
        content: fc.oneof(fc.uint8Array({ maxLength: 2_000 }), fc.constant(new Uint8Array(0))),
        filename: fc.constantFrom(
          'card.png',
          '../../etc/passwd',
          'a\u0000.png',
          'x.charx',
          '\ud800.json',
          'card.json',
        ),
      }),
    );
  // Operations without inputs still get a query parameter nobody declared.
  if (!choices.length)
    choices.push(
      fc.record({
        kind: fc.constant('field' as const),
        location: fc.constant('query' as const),
        name: fc.constantFrom('unknown', '__proto__', 'constructor'),
        value: hostileValue,
      }),
    );
  // Some requests stay valid-looking (known ids where the schema wants one): they reach the code past validation.
  choices.push(fc.constant({ kind: 'valid' as const }));
  const drawn = fc.sample(fc.oneof(...choices), { seed, numRuns: runs });
  // Every operation that can carry a body also meets the body parser's failure modes.
  const raws: Mutation[] = (
    body || multipartSchema(op) || op.method !== 'get' ? RAW_BODIES : RAW_BODIES.slice(0, 2)
  ).map((raw) => ({ kind: 'raw', raw }));
  return [...drawn, ...edgeMutations(op, resolve), ...raws];
}

/** A request: valid-looking everywhere but in the one place the mutation attacks. */
export function buildRequest(
  op: Operation,
  mutation: Mutation,
  context: SampleContext,
  headers: Record<string, string>,
): SweepRequest {
  let path = op.path;
  for (const param of parametersOf(op, 'path')) {
    const name = param['name'] as string;
    const value =
      mutation.kind === 'path' && mutation.name === name
        ? mutation.value
        : mutation.kind === 'edge' && mutation.location === 'path' && mutation.path[0] === name
          ? urlValue(mutation.value)
          : urlValue(sampleOf(param['schema'] as Schema, context));
    path = path.replace(`{${name}}`, value);
  }
  const query: string[] = [];
  for (const param of parametersOf(op, 'query')) {
    if (!param['required']) continue;
    if (mutation.kind === 'edge' && mutation.location === 'query' && mutation.path[0] === param['name'])
      continue;
    query.push(`${param['name']}=${urlValue(sampleOf(param['schema'] as Schema, context))}`);
  }
  if (mutation.kind === 'field' && mutation.location === 'query')
    query.push(...queryPairs(mutation.name, mutation.value));
  if (mutation.kind === 'edge' && mutation.location === 'query')
    query.push(...queryPairs(mutation.path[0]!, mutation.value));
  const url = query.length ? `${path}?${query.join('&')}` : path;
  const label = describeMutation(mutation);
  const method = op.method.toUpperCase();

  if (mutation.kind === 'raw')
    return { label, method, url, headers: { ...headers, ...mutation.raw.headers }, body: mutation.raw.body };
  const multipart = multipartSchema(op);
  if (multipart) {
    const form = new FormData();
    const content = mutation.kind === 'file' ? mutation.content : new Uint8Array([0x7b, 0x7d]);
    const filename = mutation.kind === 'file' ? mutation.filename : 'card.json';
    for (const field of (multipart['required'] ?? ['file']) as string[])
      form.append(field, new Blob([content]), filename);
    return { label, method, url, headers, body: form };
  }
  const schema = jsonBodySchema(op);
  if (!schema) return { label, method, url, headers };
  let body = sampleOf(schema, context);
  if (mutation.kind === 'body') body = mutation.value;
  if (mutation.kind === 'field' && mutation.location === 'body')
    body = { ...(body as object), [mutation.name]: mutation.value };
  if (mutation.kind === 'extra-key') body = withKey(body, mutation.key, mutation.value);
  if (mutation.kind === 'edge' && mutation.location === 'body')
    body = withField(body, mutation.path, mutation.value);
  return {
    label,
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  };
}

/** Adds a key as own data, even `__proto__` (an object literal or assignment would set the prototype instead). */
function withKey(body: unknown, key: string, value: unknown): unknown {
  const target = typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
  return JSON.parse(
    `{${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'},${JSON.stringify(target).slice(1)}`.replace(
      /,}$/,
      '}',
    ),
  );
}

/** URLs stay under Node's 16 KiB header limit, past which its HTTP parser answers 431 before any app code runs. */
const MAX_URL_VALUE = 6_000;

function urlValue(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  return encodeWtf8(text.slice(0, MAX_URL_VALUE))
    .slice(0, MAX_URL_VALUE)
    .replace(/%[0-9A-F]?$/, '');
}

function queryPairs(name: string, value: unknown): string[] {
  if (Array.isArray(value)) return value.slice(0, 50).map((item) => `${name}=${urlValue(item)}`);
  if (value !== null && typeof value === 'object')
    return Object.entries(value).map(([k, v]) => `${name}[${encodeWtf8(k)}]=${urlValue(v)}`);
  return [`${name}=${urlValue(value)}`];
}

/** Percent-encoding that also carries lone surrogates (as their WTF-8 bytes), which encodeURIComponent refuses. */
export function encodeWtf8(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

function describeMutation(mutation: Mutation): string {
  const short = (value: unknown) => {
    const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
    return text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
  };
  switch (mutation.kind) {
    case 'valid':
      return 'valid-looking';
    case 'field':
      return `${mutation.location}.${mutation.name} = ${short(mutation.value)}`;
    case 'edge':
      return `${mutation.location}.${mutation.path.join('.')} = ${short(mutation.value)} (${mutation.edge} edge)`;
    case 'path':
      return `path.${mutation.name} = ${short(mutation.value)}`;
    case 'body':
      return `body = ${short(mutation.value)}`;
    case 'extra-key':
      return `body.${mutation.key} = ${short(mutation.value)}`;
    case 'raw':
      return `raw body: ${mutation.raw.label}`;
    case 'file':
      return `file ${short(mutation.filename)} of ${mutation.content.length} bytes`;
  }
}

/** Sends a request over plain HTTP (fetch refuses bodies on GET); never throws: no answer in time is `timedOut`. */
export async function send(
  baseUrl: string,
  request: SweepRequest,
  timeoutMs: number,
): Promise<SweepResponse> {
  let headers = request.headers;
  let body = request.body;
  if (body instanceof FormData) {
    const encoded = new Request('http://multipart', { method: 'POST', body });
    headers = { ...headers, 'content-type': encoded.headers.get('content-type') ?? '' };
    body = new Uint8Array(await encoded.arrayBuffer());
  }
  // Node frames GET and DELETE bodies only when told their length.
  if (body !== undefined) headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve) => {
    const req = http.request(
      `${baseUrl}${request.url}`,
      { method: request.method, headers, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers['content-type'] ?? '',
            text: Buffer.concat(chunks).toString(),
            timedOut: false,
          }),
        );
        res.on('error', (error) =>
          resolve({ status: 0, contentType: '', text: String(error), timedOut: false }),
        );
      },
    );
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 0, contentType: '', text: '', timedOut: true });
    });
    // A server may answer and close before reading a large body: the answer counts, not the broken pipe.
    req.on('error', (error) => resolve({ status: 0, contentType: '', text: String(error), timedOut: false }));
    req.end(body);
  });
}

/** Whether an error response has the public shape `{ error: { code, message, details? } }`. */
export function isErrorShape(response: SweepResponse): boolean {
  if (!response.contentType.startsWith('application/json')) return false;
  try {
    const body = JSON.parse(response.text) as { error?: { code?: unknown; message?: unknown } };
    return typeof body.error?.code === 'string' && typeof body.error.message === 'string';
  } catch {
    return false;
  }
}
