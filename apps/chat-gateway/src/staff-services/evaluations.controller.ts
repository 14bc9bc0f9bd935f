import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseFilters } from '@nestjs/common';
import type { Response } from 'express';
import { Roles } from '../auth/auth.decorators';
import { EvalRunnerClient } from './eval-runner.client';
import { compareQuery, type CompareQuery } from './evaluation.schemas';
import {
  type CreateEvaluationRequest,
  createEvaluationRequest,
  evaluationComparison,
  evaluationDetail,
  evaluationList,
  evaluationView,
  type ListEvaluationsQuery,
  listEvaluationsQuery,
} from '@echoloop/vocabulary';
import { idSchema } from './rl-jobs.schemas';
import { UpstreamErrorFilter } from './upstream';

const UNAVAILABLE = '503 when the eval-runner is not configured or not reachable.';
const id = new ZodValidationPipe(idSchema);

/** Benchmark evaluations of checkpoints, forwarded to the eval-runner: experimenters run them, analysts read. */
@Controller('v1/evaluations')
@UseFilters(UpstreamErrorFilter)
export class EvaluationsController {
  constructor(private readonly evalRunner: EvalRunnerClient) {}

  @Get()
  @Roles('experimenter', 'analyst')
  @ApiDoc({ summary: 'Evaluations, newest first', description: UNAVAILABLE, response: evaluationList })
  list(@Query(new ZodValidationPipe(listEvaluationsQuery)) query: ListEvaluationsQuery) {
    return this.evalRunner.list(query);
  }

  @Post()
  @HttpCode(202)
  @Roles('experimenter')
  @ApiDoc({
    summary: 'Starts an evaluation of a checkpoint on the sentient benchmark, in the background',
    description: `422 when the checkpoint cannot be served or a profile is unknown. ${UNAVAILABLE}`,
    response: evaluationView,
  })
  create(@Body(new ZodValidationPipe(createEvaluationRequest)) input: CreateEvaluationRequest) {
    return this.evalRunner.create(input);
  }

  @Get('compare')
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: "Two evaluations' reports side by side",
    description: UNAVAILABLE,
    response: evaluationComparison,
  })
  compare(@Query(new ZodValidationPipe(compareQuery)) query: CompareQuery) {
    return this.evalRunner.compare(query);
  }

  @Get(':id')
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: 'An evaluation with its report so far',
    description: UNAVAILABLE,
    response: evaluationDetail,
  })
  get(@Param('id', id) evaluationId: string) {
    return this.evalRunner.get(evaluationId);
  }

  @Get(':id/report.html')
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: 'The report as an HTML page (sandboxed: its scripts run in an origin of their own)',
    description: UNAVAILABLE,
    responseType: 'text/html',
  })
  async html(
    @Param('id', id) evaluationId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string> {
    const html = await this.evalRunner.reportHtml(evaluationId);
    // Declared once the page exists: a refusal stays JSON. The sandbox keeps the page, scripts included, off this origin.
    res.type('html');
    res.setHeader('Content-Security-Policy', 'sandbox allow-scripts');
    return html;
  }
}
