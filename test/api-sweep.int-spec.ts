import fc from 'fast-check';
import { io, type Socket } from 'socket.io-client';
import { hostileBody, hostileValue } from './openapi/hostile-values';
import { freshUuid, sampleOf, type SampleContext, type Schema } from './openapi/json-schema-sample';
import { APPS, type AppName } from './openapi/openapi-fixture';
import { startSweepStack, type Caller, type SweepStack } from './openapi/sweep-stack';
import {
  buildRequest,
  isErrorShape,
  operationKey,
  operationsOf,
  send,
  sweepMutations,
  type Operation,
  type SweepRequest,
  type SweepResponse,
} from './openapi/sweep-requests';
import { changedTables, tableCounts, type TableCounts } from './openapi/table-counts';
import { EDGES, typedFields, withField } from './openapi/type-edges';

/**
 * Every operation of the four apps' OpenAPI documents, and every socket event the gateway documents, driven with
 * hostile input (fast-check, fixed seed) and with every edge of the database type behind each date-time, uuid,
 * number and cursor field (type-edges.ts; the JSON Schema allows values the database does not): no 5xx, an answer in time, errors in the public shape, and nothing
 * written by a refused request. New routes are swept as soon as they are documented, which is at once.
 */
const SEED = 20_261_124;
const RUNS_PER_OPERATION = 24;
const RESPONSE_TIMEOUT_MS = 10_000;

/** Operations left out, with why (`METHOD /path`). None today. */
const EXCLUDED: Record<string, string> = {};

/** Tables a refused request may still change, with why. None today. */
const WRITES_ON_REFUSAL: Record<string, string> = {};

let stack: SweepStack;

beforeAll(async () => {
  stack = await startSweepStack();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const seedOf = (text: string) => [...text].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) | 0, SEED);

/**
 * Who calls an operation: nobody on public routes; for bearer tokens an admin where roles are named, else a new
 * user (with a conversation of their own); the service key wherever API keys are accepted. They take turns.
 */
async function callersOf(op: Operation): Promise<(Caller & { ids?: string[] })[]> {
  const security = (op.operation['security'] ?? []) as Record<string, unknown>[];
  if (!security.length) return [{ label: 'anonymous', headers: {} }];
  const schemes = new Set(security.flatMap((s) => Object.keys(s)));
  const callers: (Caller & { ids?: string[] })[] = [];
  if (schemes.has('bearerAuth'))
    callers.push(op.operation['x-required-roles'] ? stack.admin : await stack.user());
  if (schemes.has('apiKey')) callers.push(stack.service);
  return callers;
}

function sampleContext(doc: Schema, ids: string[]): SampleContext {
  let next = 0;
  return {
    resolve: (ref) =>
      ref
        .split('/')
        .slice(1)
        .reduce<Schema>((node, key) => node[key] as Schema, doc),
    // Known rows first, so requests reach the code behind the lookups; then ids nobody has.
    uuid: () => (next++ % 3 === 2 ? freshUuid() : ids[next % ids.length]!),
  };
}

async function counts(): Promise<TableCounts> {
  const all = await tableCounts(stack.db);
  return Object.fromEntries(Object.entries(all).filter(([table]) => !(table in WRITES_ON_REFUSAL)));
}

/** Waits until no table changes for a moment (work started by earlier accepted requests has settled). */
async function quiet(): Promise<TableCounts> {
  let previous = await counts();
  for (let i = 0; i < 30; i++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = await counts();
    if (!changedTables(previous, now).length) return now;
    previous = now;
  }
  return previous;
}

/**
 * The problems of one request. A refused request that seems to have written is replayed once the database is
 * quiet, so that work started by earlier accepted requests is not blamed on it.
 */
async function check(
  app: AppName,
  what: string,
  request: SweepRequest,
): Promise<{ status: number; problems: string[] }> {
  const before = await counts();
  const response = await send(stack.apps[app].url, request, RESPONSE_TIMEOUT_MS);
  return { status: response.status, problems: await problemsOf(app, what, request, before, response) };
}

async function problemsOf(
  app: AppName,
  what: string,
  request: SweepRequest,
  before: TableCounts,
  response: SweepResponse,
): Promise<string[]> {
  const url = stack.apps[app].url;
  const where = `${app} ${what} [${request.label}]`;
  if (response.timedOut) return [`${where}: no answer within ${RESPONSE_TIMEOUT_MS} ms`];
  if (response.status === 0) return [`${where}: connection failed: ${response.text.slice(0, 200)}`];
  if (response.status >= 500) return [`${where}: ${response.status} ${response.text.slice(0, 200)}`];
  if (response.status < 400) return [];
  const problems: string[] = [];
  if (!isErrorShape(response))
    problems.push(
      `${where}: ${response.status} not in the error shape: ${response.contentType} ${response.text.slice(0, 120)}`,
    );
  if (changedTables(before, await counts()).length) {
    const settled = await quiet();
    const replay = await send(url, request, RESPONSE_TIMEOUT_MS);
    const changed = changedTables(settled, await counts());
    if (replay.status >= 400 && replay.status < 500 && changed.length)
      problems.push(`${where}: refused with ${replay.status} but wrote: ${changed.join(', ')}`);
  }
  return problems;
}

async function sweepOperation(app: AppName, op: Operation): Promise<string[]> {
  const key = operationKey(op);
  const problems: string[] = [];
  const callers = await callersOf(op);
  const ids = [...callers.flatMap((caller) => caller.ids ?? []), stack.characterId, stack.admin.userId];
  const context = sampleContext(stack.documents[app] as unknown as Schema, ids);
  const mutations = sweepMutations(op, seedOf(`${app} ${key}`), RUNS_PER_OPERATION, context.resolve);
  let pastAuthentication = callers[0]?.label === 'anonymous';
  for (const [i, mutation] of mutations.entries()) {
    const caller = callers[i % callers.length]!;
    const request = buildRequest(op, mutation, context, caller.headers);
    const result = await check(app, `${key} as ${caller.label}`, request);
    problems.push(...result.problems);
    if (mutation.kind !== 'raw' && result.status !== 401 && result.status !== 403) pastAuthentication = true;
  }
  // A sweep refused at the door tests nothing: some request of every operation must reach its code.
  if (!pastAuthentication)
    problems.push(`${app} ${key}: every request was refused as unauthenticated or forbidden`);
  return problems;
}

describe('hostile input on every documented operation', () => {
  it.each(APPS)(
    '%s: no 5xx, no hang, errors in the shape, nothing half-written',
    async (app) => {
      const operations = operationsOf(stack.documents[app] as never).filter(
        (op) => !EXCLUDED[operationKey(op)],
      );
      expect(operations.length).toBeGreaterThan(3);
      const problems: string[] = [];
      for (const op of operations) problems.push(...(await sweepOperation(app, op)));
      expect((await fetch(`${stack.apps[app].url}/health/live`)).status).toBe(200);
      expect(problems).toEqual([]);
    },
    300_000,
  );
});

describe('hostile payloads on every socket event', () => {
  let socket: Socket;

  afterAll(() => socket?.disconnect());

  it('every event is acknowledged in time, errors in the shape, nothing half-written', async () => {
    const user = await stack.user();
    // Payloads name the user's own conversation and messages too, so that they reach the turn code.
    expect(user.ids.length).toBeGreaterThan(0);
    const connect = async () => {
      socket = io(`${stack.apps['chat-gateway'].url}/chat`, {
        auth: { token: user.token },
        transports: ['websocket'],
        reconnection: false,
      });
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
    };
    await connect();
    const events = Object.entries(stack.documents['chat-gateway']['x-socket-events']);
    expect(events.length).toBeGreaterThan(0);
    const context = sampleContext(stack.documents['chat-gateway'] as unknown as Schema, [
      ...user.ids,
      stack.characterId,
    ]);
    const problems: string[] = [];
    for (const [event, { payload }] of events) {
      const fields = Object.keys((payload['properties'] ?? {}) as Schema);
      // Every edge of each typed field's database type, then values drawn from the hostile ones.
      const edges = typedFields(payload, context.resolve).flatMap(({ path, kind }) =>
        EDGES[kind].map((value) => withField(sampleOf(payload, context), path, value)),
      );
      const drawn = fc.sample(
        fc.oneof(
          hostileBody,
          fc.constant(undefined),
          ...(fields.length
            ? [
                fc
                  .record({ name: fc.constantFrom(...fields), value: hostileValue })
                  .map(({ name, value }) => ({ ...(sampleOf(payload, context) as object), [name]: value })),
              ]
            : []),
        ),
        { seed: seedOf(event), numRuns: RUNS_PER_OPERATION },
      );
      for (const sent of [...edges, ...drawn]) {
        const label = `${event} [${(JSON.stringify(sent) ?? 'undefined').slice(0, 60)}]`;
        const before = await counts();
        let ack: unknown;
        try {
          ack = await socket.timeout(RESPONSE_TIMEOUT_MS).emitWithAck(event, sent);
        } catch {
          problems.push(
            `${label}: no acknowledgement within ${RESPONSE_TIMEOUT_MS} ms (connected: ${socket.connected})`,
          );
          if (!socket.connected) await connect();
          continue;
        }
        const error = (ack as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
        if (error === undefined) continue;
        if (typeof error.code !== 'string' || typeof error.message !== 'string')
          problems.push(`${label}: error not in the shape: ${JSON.stringify(ack).slice(0, 120)}`);
        if (error.code === 'internal') problems.push(`${label}: internal error`);
        const changed = changedTables(before, await counts());
        if (changed.length) {
          const settled = await quiet();
          const again = (await socket.timeout(RESPONSE_TIMEOUT_MS).emitWithAck(event, sent)) as {
            error?: unknown;
          };
          const still = changedTables(settled, await counts());
          if (again?.error && still.length) problems.push(`${label}: refused but wrote: ${still.join(', ')}`);
        }
      }
    }
    expect(socket.connected).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);
});
