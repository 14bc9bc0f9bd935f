import { bindEmitter, contextOf, SpanKind, SpanStatusCode, startSpan, withContext } from '@echoloop/tracing';
import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * One server span per HTTP request, continuing the caller's W3C trace context, named by its route template (never
 * its URL: ids and queries stay out of traces); installed only while tracing is on.
 */
export function installRequestTracing(app: INestApplication): void {
  app.use((req: Request, res: Response, next: NextFunction) => {
    const { span, context } = startSpan(`HTTP ${req.method}`, {
      kind: SpanKind.SERVER,
      parent: contextOf(req.headers),
      attributes: { 'http.request.method': req.method },
    });
    res.once('close', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      if (route) {
        span.updateName(`${req.method} ${req.baseUrl}${route}`);
        span.setAttribute('http.route', `${req.baseUrl}${route}`);
      }
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    // The body arrives in the request's own events: bound, so that what runs after parsing stays in the span.
    bindEmitter(context, req);
    bindEmitter(context, res);
    withContext(context, next);
  });
}
