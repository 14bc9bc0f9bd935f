import { Public } from '../http/public.decorator';
import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  checkReadiness,
  HEALTH_INDICATORS,
  type HealthIndicator,
  type ReadinessReport,
} from './health-indicator';

const CHECK_TIMEOUT_MS = 2_000;

@Public()
@Controller('health')
export class HealthController {
  constructor(@Inject(HEALTH_INDICATORS) private readonly indicators: HealthIndicator[]) {}

  /** The process is up and its event loop answers. Never touches dependencies (no restart storms). */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Every dependency answers; 503 with Retry-After otherwise, so load balancers stop sending traffic. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) res: Response): Promise<ReadinessReport> {
    const report = await checkReadiness(this.indicators, CHECK_TIMEOUT_MS);
    if (report.status !== 'ok') res.status(503).setHeader('Retry-After', '5');
    return report;
  }
}
