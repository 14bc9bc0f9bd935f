import { context, type Context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';

/**
 * The W3C trace context (`traceparent`, `tracestate`) of `ctx` as headers, for an outbox row, a Kafka message or an
 * HTTP request; empty while tracing is off.
 */
export function traceHeaders(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/** The context that headers carry (Kafka's may be Buffers, HTTP's arrays); the root context when they carry none (never the caller's). */
export function contextOf(headers: Record<string, unknown> | undefined): Context {
  const carrier: Record<string, string> = {};
  for (const name of ['traceparent', 'tracestate']) {
    const value = headers?.[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string') carrier[name] = text;
    else if (Buffer.isBuffer(text)) carrier[name] = text.toString('utf8');
  }
  return propagation.extract(ROOT_CONTEXT, carrier);
}
