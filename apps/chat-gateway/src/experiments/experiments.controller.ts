import { ZodValidationPipe } from '@echoloop/platform';
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
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createExperimentSchema)) input: CreateExperimentInput,
  ) {
    return view(await this.experiments.create(principal.userId, input));
  }

  @Get()
  async list() {
    return { items: (await this.experiments.list()).map(view) };
  }

  @Get(':id')
  async get(@Param('id', uuid) id: string) {
    return view(await this.experiments.get(id));
  }

  @Get(':id/audit')
  async audit(@Param('id', uuid) id: string) {
    await this.experiments.get(id);
    return { items: await this.experiments.auditLog(id) };
  }

  @Get(':id/results')
  results(@Param('id', uuid) id: string) {
    return this.resultsService.results(id);
  }

  @Post(':id/start')
  @HttpCode(200)
  async start(@CurrentPrincipal() principal: Principal, @Param('id', uuid) id: string) {
    return view(await this.experiments.start(principal.userId, id));
  }

  @Post(':id/stop')
  @HttpCode(200)
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
  async promote(
    @CurrentPrincipal() principal: Principal,
    @Param('id', uuid) id: string,
    @Body(new ZodValidationPipe(promoteSchema)) input: { armId: string },
  ) {
    return view(await this.experiments.promote(principal.userId, id, input.armId));
  }

  @Patch(':id/weights')
  async weights(
    @CurrentPrincipal() principal: Principal,
    @Param('id', uuid) id: string,
    @Body(new ZodValidationPipe(weightsSchema)) input: WeightsInput,
  ) {
    return view(await this.experiments.setWeights(principal.userId, id, input.weights));
  }
}
