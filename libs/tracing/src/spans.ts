import {
  type Attributes,
  context,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

const tracer = () => trace.getTracer('echoloop');

export { SpanKind, SpanStatusCode };
/** The context of no trace: a span started in it begins a trace of its own. */
export const ROOT: Context = ROOT_CONTEXT;

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The span's parent: the active context when left out. */
  parent?: Context;
  /** Spans this one is about without being their child (a batch's messages). */
  links?: Link[];
}

/** A span started now and ended by the caller (a stream's lifetime, say), with the context that holds it. */
export function startSpan(name: string, options: SpanOptions = {}): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      ...(options.attributes && { attributes: options.attributes }),
      ...(options.links && { links: options.links }),
    },
    parent,
  );
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * Runs `work` inside a new span (the active one for everything it calls), ended when it settles; a thrown error
 * marks the span failed with the error's name only (messages may hold user text). No-op while tracing is off.
 */
export async function traced<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const { span, context: inside } = startSpan(name, options);
  try {
    const result = await context.with(inside, () => work(span));
    span.end();
    return result;
  } catch (error) {
    endFailed(span, error);
    throw error;
  }
}

/** Runs `work` with `ctx` as the active context (so the spans it starts are ctx's children). */
export function withContext<T>(ctx: Context, work: () => T): T {
  return context.with(ctx, work);
}

/** Runs the emitter's listeners in `ctx` (a request's body events are emitted outside the span that handles it). */
export function bindEmitter<E extends NodeJS.EventEmitter>(ctx: Context, emitter: E): E {
  return context.bind(ctx, emitter);
}

/** Marks a span failed (an error's name only) and ends it. */
export function endFailed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
  span.end();
}

/** The spans of a batch of messages, each continuing its sender's trace, and the context the batch's work runs in. */
export interface BatchSpans {
  /** Each message's context, in the batch's order. */
  each: Context[];
  /** The one message's context, or that of a span linked to all of them (a root of its own); ROOT for none. */
  batch: Context;
  end(): void;
}

/** Starts a span per message (parents: their senders' contexts) and, for more than one, a batch span linking them. */
export function batchSpans(
  name: string,
  parents: Context[],
  options: Omit<SpanOptions, 'parent' | 'links'>,
): BatchSpans {
  const spans = parents.map((parent) => startSpan(name, { ...options, parent }));
  const batch =
    spans.length > 1
      ? startSpan(`${name} batch`, {
          ...options,
          parent: ROOT,
          links: spans.map(({ span }) => ({ context: span.spanContext() })),
          attributes: { ...options.attributes, 'messaging.batch.message_count': spans.length },
        })
      : undefined;
  return {
    each: spans.map((s) => s.context),
    batch: batch?.context ?? spans[0]?.context ?? ROOT,
    end: () => {
      for (const { span } of spans) span.end();
      batch?.span.end();
    },
  };
}
