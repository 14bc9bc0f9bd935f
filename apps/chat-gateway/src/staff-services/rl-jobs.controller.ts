import {
  listRlJobsQuery,
  type ListRlJobsQuery,
  rlJobCancelled,
  rlJobDetail,
  rlJobList,
  rlTriggers,
} from '@echoloop/vocabulary';
import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, HttpCode, Param, Post, Query, UseFilters } from '@nestjs/common';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { RlOrchestratorClient } from './rl-orchestrator.client';
import { idSchema, startRlJobSchema, type StartRlJobInput } from './rl-jobs.schemas';
import { UpstreamErrorFilter } from './upstream';

const UNAVAILABLE = ' 503 when the RL orchestrator is not configured or not reachable.';

/** RL refreshes for product teams, forwarded to the RL orchestrator: experimenters act, analysts read too. */
@Controller('v1/rl')
@UseFilters(UpstreamErrorFilter)
export class RlJobsController {
  constructor(private readonly orchestrator: RlOrchestratorClient) {}

  @Get('jobs')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ summary: 'RL jobs, newest first', description: UNAVAILABLE.trim(), response: rlJobList })
  list(@Query(new ZodValidationPipe(listRlJobsQuery)) query: ListRlJobsQuery) {
    return this.orchestrator.list(query);
  }

  @Post('jobs')
  @Roles('experimenter')
  @ApiDoc({
    summary: 'Starts a refresh by hand',
    description: `409 \`refresh_running\` (with the running job's id) while one is active.${UNAVAILABLE}`,
    response: rlJobDetail,
  })
  start(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(startRlJobSchema)) input: StartRlJobInput,
  ) {
    // The orchestrator sees the gateway's key; the job records who asked here.
    return this.orchestrator.start({ ...input, onBehalfOf: principal.userId });
  }

  @Get('jobs/:id')
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: "An RL job: stage, dataset, metrics, gate and its log's tail",
    description: UNAVAILABLE.trim(),
    response: rlJobDetail,
  })
  get(@Param('id', new ZodValidationPipe(idSchema)) id: string) {
    return this.orchestrator.get(id);
  }

  @Post('jobs/:id/cancel')
  @HttpCode(202)
  @Roles('experimenter')
  @ApiDoc({
    summary: 'Asks for a job to be cancelled',
    description: `409 \`job_ended\` when it already ended.${UNAVAILABLE}`,
    response: rlJobCancelled,
  })
  cancel(@Param('id', new ZodValidationPipe(idSchema)) id: string) {
    return this.orchestrator.cancel(id);
  }

  @Get('triggers')
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: 'The refresh triggers: schedule, thresholds, new data and recent decisions with reasons',
    description: UNAVAILABLE.trim(),
    response: rlTriggers,
  })
  triggers() {
    return this.orchestrator.triggers();
  }
}
