import {
  type AppProcess,
  type CollectedSpan,
  type FakeVllm,
  startTraceCollector,
  type TraceCollector,
  waitFor,
} from '@echoloop/testing';
import { TOPICS } from '@echoloop/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { startJudgedLabeller } from '../experiments/ab-fixture';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

describe('traces across the loop: one turn from the gateway through the outbox and Kafka to the labeller, in one trace', () => {
  let f: ChatFixture;
  let labeller: AppProcess;
  let judge: FakeVllm;
  let collector: TraceCollector;
  let user: { token: string };

  const trace = (traceId: string) => collector.spans().filter((s) => s.traceId === traceId);
  const one = (spans: CollectedSpan[], service: string, name: string) => {
    const found = spans.filter((s) => s.service === service && s.name === name);
    expect([service, name, found.length]).toEqual([service, name, 1]);
    return found[0]!;
  };
  /** Waits until the trace holds the labeller's handling of the turn's message (it ends after its judges). */
  const labelledTrace = (traceId: string) =>
    waitFor(
      () => {
        const spans = trace(traceId);
        return (
          spans.some(
            (s) => s.service === 'reward-labeller' && s.name === `consume ${TOPICS.chatTurnCompleted}`,
          ) && spans
        );
      },
      { timeoutMs: 60_000, what: "the turn's trace reaching the labeller" },
    );

  /**
   * The walk of one turn: the model call within the reply (or within the entry, when the model request started
   * before the message was stored), the publish within the reply, the labeller's consume within the publish, and its
   * judges within the consume.
   */
  const expectTurnWalk = (spans: CollectedSpan[], entry: CollectedSpan) => {
    const reply = spans.find((s) => s.service === 'chat-gateway' && s.name === 'chat reply');
    if (reply) expect(reply.parentSpanId).toBe(entry.spanId);
    const replySpan = reply?.spanId ?? entry.spanId;
    const model = one(spans, 'chat-gateway', 'llm chat');
    // Published by whichever app's outbox relay holds the lock (every app relays the one outbox).
    const published = spans.filter((s) => s.name === `publish ${TOPICS.chatTurnCompleted}`);
    expect(published).toHaveLength(1);
    const publish = published[0]!;
    const consume = one(spans, 'reward-labeller', `consume ${TOPICS.chatTurnCompleted}`);
    const judges = spans.filter((s) => s.service === 'reward-labeller' && s.name === 'judge chat');
    expect(model).toMatchObject({ parentSpanId: replySpan, kind: CLIENT });
    expect(model.attributes['gen_ai.request.model']).toBe('fake-base-model');
    // The model server was sent the model call's context, so a server that traces continues the turn's trace.
    expect(f.vllm.requests.map((r) => r.headers['traceparent'])).toContain(
      `00-${model.traceId}-${model.spanId}-01`,
    );
    expect(publish).toMatchObject({ parentSpanId: replySpan, kind: PRODUCER });
    expect(consume).toMatchObject({ parentSpanId: publish.spanId, kind: CONSUMER });
    expect(consume.attributes['messaging.destination.name']).toBe(TOPICS.chatTurnCompleted);
    // The empathy and humanlike judges (one request or two), called while the labeller handled the message.
    expect(judges.length).toBeGreaterThanOrEqual(1);
    for (const judged of judges) expect(judged).toMatchObject({ parentSpanId: consume.spanId, kind: CLIENT });
    // Nothing of what the user wrote is in a span.
    expect(JSON.stringify(spans)).not.toContain('lighthouse');
  };

  beforeAll(async () => {
    collector = await startTraceCollector();
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
    f = await startChatFixture({ TRAINING_CONSENT_DEFAULT: 'true', ...tracing });
    ({ labeller, judge } = await startJudgedLabeller(f, [], tracing));
    user = await f.register('Robin');
  });
  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
    await collector?.close();
  });

  it('an HTTP turn continues the client’s trace: request, reply, model call, publish, consume, judges', async () => {
    const { body: key } = await f.http(user.token, 'POST', '/v1/me/api-keys', { name: 'traced' });
    const traceId = randomBytes(16).toString('hex');
    const clientSpan = randomBytes(8).toString('hex');
    const res = await fetch(`${f.gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.key}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${clientSpan}-01`,
      },
      body: JSON.stringify({
        model: 'default',
        messages: [{ role: 'user', content: 'I miss the lighthouse.' }],
      }),
    });
    expect(res.status).toBe(200);
    const spans = await labelledTrace(traceId);
    const request = one(spans, 'chat-gateway', 'POST /v1/chat/completions');
    expect(request).toMatchObject({ parentSpanId: clientSpan, kind: SERVER });
    expect(request.attributes['http.response.status_code']).toBe(200);
    expectTurnWalk(spans, request);
  }, 120_000);

  it('a socket.io turn starts a trace of its own that reaches the labeller the same way', async () => {
    const { body: conversation } = await f.http(user.token, 'POST', '/v1/conversations', {
      characterId: f.characterId,
    });
    const socket = await f.connect(user.token);
    const before = new Set(collector.spans().map((s) => s.spanId));
    await new Promise<void>((resolve, reject) => {
      socket.once('message:done', () => resolve());
      socket.once('message:error', (error: { code: string }) => reject(new Error(error.code)));
      socket.emit('message:send', {
        conversationId: conversation.id,
        content: 'The lighthouse keeper waved.',
        clientMessageId: randomUUID(),
      });
    });
    const entry = await waitFor(
      () =>
        collector
          .spans()
          .find(
            (s) =>
              !before.has(s.spanId) && s.service === 'chat-gateway' && s.name === 'socket.io message:send',
          ),
      { timeoutMs: 60_000, what: 'the socket turn’s span' },
    );
    expect(entry).toMatchObject({ parentSpanId: undefined, kind: SERVER });
    expectTurnWalk(await labelledTrace(entry.traceId), entry);
  }, 120_000);
});
