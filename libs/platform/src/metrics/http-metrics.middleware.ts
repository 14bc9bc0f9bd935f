import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service';

/** Times every HTTP request, labelled by the matched route pattern (not the raw URL, to bound cardinality). */
@Injectable()
export class HttpMetricsMiddleware implements NestMiddleware {
  constructor(private readonly metrics: MetricsService) {}

  use(req: Request, res: Response, next: NextFunction): void {
    const end = this.metrics.httpRequestDuration.startTimer({ method: req.method });
    res.once('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ route: `${req.baseUrl}${route}`, status: String(res.statusCode) });
    });
    next();
  }
}
