import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { contextOf, traceHeaders } from './propagation';
import { startTracing } from './start-tracing';
import { SpanKind, startSpan, traced } from './spans';

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
    expect(finished('judge').status).toEqual({ code: 2, message: 'JudgeUnavailable' });
    expect(JSON.stringify(finished('judge').events)).not.toContain('secret');
  });
});
