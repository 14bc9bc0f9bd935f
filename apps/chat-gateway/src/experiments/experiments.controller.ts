import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import {
  createExperimentSchema,
  type CreateExperimentInput,
  promoteSchema,
  stopSchema,
  weightsSchema,
  type WeightsInput,
} from './experiment.schemas';
import { experimentAudit, experimentList, experimentResults, experimentView } from './experiment.responses';
import { ExperimentsService } from './experiments.service';
import { ResultsService, view } from './results.service';

const uuid = new ParseUUIDPipe({ version: '4' });

/** Experiments over checkpoints: experimenters (and admins) only. */
@Controller('v1/experiments')
@Roles('experimenter')
export class ExperimentsController {
  constructor(
    private readonly experiments: ExperimentsService,
    private readonly resultsService: ResultsService,
  ) {}

  @Post()
  @ApiDoc({ summary: 'Creates a draft experiment', response: experimentView })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createExperimentSchema)) input: CreateExperimentInput,
  ) {
    return view(await this.experiments.create(principal.userId, input));
  }

  @Get()
  @ApiDoc({ summary: 'Experiments, newest first', response: experimentList })
  async list() {
    return { items: (await this.experiments.list()).map(view) };
  }

  @Get(':id')
  @ApiDoc({ response: experimentView })
  async get(@Param('id', uuid) id: string) {
    return view(await this.experiments.get(id));
  }

  @Get(':id/audit')
  @ApiDoc({ summary: 'Who changed the experiment, and how', response: experimentAudit })
  async audit(@Param('id', uuid) id: string) {
    await this.experiments.get(id);
    return { items: await this.experiments.auditLog(id) };
  }

  @Get(':id/results')
  @ApiDoc({
    summary:
      'Per metric and arm: users, mean, interval; against control Welch, sequential and Bayesian; SRM, guardrails and the decision',
    response: experimentResults,
  })
  results(@Param('id', uuid) id: string) {
    return this.resultsService.results(id);
  }

  @Post(':id/start')
  @HttpCode(200)
  @ApiDoc({ response: experimentView })
  async start(@CurrentPrincipal() principal: Principal, @Param('id', uuid) id: string) {
    return view(await this.experiments.start(principal.userId, id));
  }

  @Post(':id/stop')
  @HttpCode(200)
  @ApiDoc({ response: experimentView })
  async stop(
    @CurrentPrincipal() principal: Principal,
    @Param('id', uuid) id: string,
    @Body(new ZodValidationPipe(stopSchema)) input: { reason?: string },
  ) {
    return view(
      await this.experiments.stop(principal.userId, id, input.reason ?? 'stopped by an experimenter'),
    );
  }

  @Post(':id/promote')
  @HttpCode(200)
  @ApiDoc({
    summary: 'Makes the arm’s checkpoint the default and ends the experiment',
    response: experimentView,
  })
  async promote(
    @CurrentPrincipal() principal: Principal,
    @Param('id', uuid) id: string,
    @Body(new ZodValidationPipe(promoteSchema)) input: { armId: string },
  ) {
    return view(await this.experiments.promote(principal.userId, id, input.armId));
  }

  @Patch(':id/weights')
  @ApiDoc({ response: experimentView })
  async weights(
    @CurrentPrincipal() principal: Principal,
    @Param('id', uuid) id: string,
    @Body(new ZodValidationPipe(weightsSchema)) input: WeightsInput,
  ) {
    return view(await this.experiments.setWeights(principal.userId, id, input.weights));
  }
}
