export { startTracing, stopTracing, TRACING_VARIABLE } from './start-tracing';
export {
  batchSpans,
  type BatchSpans,
  bindEmitter,
  endFailed,
  ROOT,
  type SpanOptions,
  SpanKind,
  SpanStatusCode,
  startSpan,
  traced,
  withContext,
} from './spans';
export { contextOf, traceHeaders } from './propagation';
export type { Context, Span } from '@opentelemetry/api';
