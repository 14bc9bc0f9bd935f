import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { contextOf, traceHeaders } from './propagation';
import { startTracing } from './start-tracing';
import { batchSpans, ROOT, SpanKind, SpanStatusCode, startSpan, traced } from './spans';

describe('tracing off (the default)', () => {
  it('starts only with OTEL_EXPORTER_OTLP_ENDPOINT set, and then adds no header and keeps results', async () => {
    expect(startTracing('test', {})).toBe(false);
    expect(traceHeaders()).toEqual({});
    await expect(traced('work', {}, async () => 42)).resolves.toBe(42);
  });
});

describe('spans and their context', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register({ propagator: new W3CTraceContextPropagator() }));
  afterEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  const finished = (name: string) => exporter.getFinishedSpans().find((s) => s.name === name)!;

  it('nests what runs inside a span, across awaits, and carries it through headers to another process', async () => {
    let headers: Record<string, string> = {};
    await traced('turn', { kind: SpanKind.SERVER }, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await traced('model call', { kind: SpanKind.CLIENT }, async () => {
        headers = traceHeaders();
      });
    });
    const turn = finished('turn');
    const model = finished('model call');
    expect(model.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    expect(headers['traceparent']).toBe(`00-${turn.spanContext().traceId}-${model.spanContext().spanId}-01`);

    // Kafka hands headers over as Buffers: the consumer's span continues the same trace.
    const kafkaHeaders = { traceparent: Buffer.from(headers['traceparent']!) };
    const { span } = startSpan('consume', { kind: SpanKind.CONSUMER, parent: contextOf(kafkaHeaders) });
    span.end();
    expect(finished('consume').spanContext().traceId).toBe(turn.spanContext().traceId);
    expect(finished('consume').parentSpanContext?.spanId).toBe(model.spanContext().spanId);
    // No headers: a trace of its own, never the caller's.
    await traced('caller', {}, async () => startSpan('unrelated', { parent: contextOf({}) }).span.end());
    expect(finished('unrelated').parentSpanContext).toBeUndefined();
  });

  it('marks a failed span with the error’s name only (a message may hold user text), and rethrows', async () => {
    class JudgeUnavailable extends Error {
      override name = 'JudgeUnavailable';
    }
    await expect(
      traced('judge', {}, async () => {
        throw new JudgeUnavailable('the user said: my secret');
      }),
    ).rejects.toThrow('my secret');
    expect(finished('judge').status).toEqual({ code: SpanStatusCode.ERROR, message: 'JudgeUnavailable' });
    expect(JSON.stringify(finished('judge').events)).not.toContain('secret');
  });

  it('gives each message of a batch a span in its sender’s trace, and links them from one batch span', () => {
    const senders = ['a', 'b'].map((name) => {
      const { span, context: sent } = startSpan(`produce ${name}`);
      span.end();
      return { span, headers: withHeaders(sent) };
    });
    const spans = batchSpans(
      'consume turns',
      senders.map((s) => contextOf(s.headers)),
      { kind: SpanKind.CONSUMER },
    );
    spans.end();
    const consumed = exporter.getFinishedSpans().filter((s) => s.name === 'consume turns');
    expect(consumed.map((s) => s.spanContext().traceId)).toEqual(
      senders.map((s) => s.span.spanContext().traceId),
    );
    const batch = finished('consume turns batch');
    expect(batch.parentSpanContext).toBeUndefined();
    expect(batch.links.map((l) => l.context.spanId)).toEqual(consumed.map((s) => s.spanContext().spanId));
    expect(batch.attributes['messaging.batch.message_count']).toBe(2);

    // One message: its work runs in its own span, with no batch span; none: in no trace.
    const one = batchSpans('consume one', [contextOf(senders[0]!.headers)], {});
    expect(trace.getSpan(one.batch)?.spanContext().spanId).toBe(
      trace.getSpan(one.each[0]!)?.spanContext().spanId,
    );
    one.end();
    expect(exporter.getFinishedSpans().map((s) => s.name)).not.toContain('consume one batch');
    expect(batchSpans('consume none', [], {}).batch).toBe(ROOT);
  });
});

/** The W3C headers a producer in `ctx` sends. */
function withHeaders(ctx: ReturnType<typeof startSpan>['context']): Record<string, string> {
  return context.with(ctx, () => traceHeaders());
}
