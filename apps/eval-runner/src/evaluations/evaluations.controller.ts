import { ApiDoc, Roles, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import {
  createEvaluationRequest,
  type CreateEvaluationRequest,
  evaluationComparison,
  evaluationDetail,
  evaluationList,
  evaluationView,
  listEvaluationsQuery,
  type ListEvaluationsQuery,
} from '@echoloop/vocabulary';
import { EvaluationsService } from './evaluations.service';

const uuid = new ParseUUIDPipe({ version: '4' });

/** Evaluations of checkpoints on the sentient benchmark: experimenters run them, analysts read them too. */
@Controller('v1/evaluations')
export class EvaluationsController {
  constructor(private readonly evaluations: EvaluationsService) {}

  @Post()
  @HttpCode(202)
  @Roles('experimenter')
  @ApiDoc({ summary: 'Starts an evaluation; it runs in the background', response: evaluationView })
  async create(@Body(new ZodValidationPipe(createEvaluationRequest)) input: CreateEvaluationRequest) {
    return this.evaluations.create(input);
  }

  @Get()
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: 'Evaluations, newest first (optionally of one status), without their profile lists',
    response: evaluationList,
  })
  async list(@Query(new ZodValidationPipe(listEvaluationsQuery)) query: ListEvaluationsQuery) {
    return { items: await this.evaluations.list(query) };
  }

  /** Two evaluations' metrics side by side (e.g. a candidate checkpoint and the default). */
  @Get('compare')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ response: evaluationComparison })
  async compare(@Query('a', uuid) a: string, @Query('b', uuid) b: string) {
    const [left, right] = await Promise.all([this.evaluations.report(a), this.evaluations.report(b)]);
    return { a: { id: a, ...left.report }, b: { id: b, ...right.report } };
  }

  @Get(':id')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ summary: 'An evaluation with what has finished so far', response: evaluationDetail })
  async get(@Param('id', uuid) id: string) {
    const evaluation = await this.evaluations.get(id);
    return { ...evaluation, report: (await this.evaluations.report(id)).report };
  }

  @Get(':id/report.html')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ summary: 'The report as an HTML page', responseType: 'text/html' })
  async html(@Param('id', uuid) id: string, @Res({ passthrough: true }) res: Response): Promise<string> {
    const { html } = await this.evaluations.report(id);
    // Declared once the page exists: a refusal before (bad id, unknown evaluation) stays JSON.
    res.type('html');
    return html;
  }
}
