import { propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * The one variable that turns tracing on: OpenTelemetry's own. Unset (the default), no span is recorded or sent and
 * the API's no-op tracer costs next to nothing.
 */
export const TRACING_VARIABLE = 'OTEL_EXPORTER_OTLP_ENDPOINT';

let provider: NodeTracerProvider | undefined;

/**
 * Starts tracing for this process when OTEL_EXPORTER_OTLP_ENDPOINT names an OTLP/HTTP collector: spans batched and
 * exported there (the exporter reads the standard OTEL_EXPORTER_OTLP_* variables), W3C trace context propagated,
 * the service named as given. Returns whether tracing is on; a second call changes nothing.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (provider) return true;
  if (!env[TRACING_VARIABLE]) return false;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return true;
}

/** Sends the spans still buffered and stops tracing (at shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  const stopping = provider;
  provider = undefined;
  if (!stopping) return;
  await stopping.shutdown();
  trace.disable();
  propagation.disable();
}
