import {
  gateReportOf,
  listRlJobsQuery,
  rlJobCancelled,
  rlJobDetail,
  rlJobList,
  rlTriggers,
} from '@echoloop/vocabulary';
import type { RlJobEntity } from '@echoloop/persistence';
import { ApiDoc, Roles, ZodValidationPipe } from '@echoloop/platform';
import {
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
} from '@nestjs/common';
import { RefreshDriver } from '../pipeline/refresh-driver';
import { RefreshTriggers } from '../triggers/refresh-triggers';
import { RlJobsRepository } from '../jobs/rl-jobs.repository';
import { type CreateRlJobInput, createRlJobSchema } from './rl-job.schemas';

const uuid = new ParseUUIDPipe({ version: '4' });
const notFound = () => new NotFoundException({ error: { code: 'not_found', message: 'RL job not found' } });

/** The list's row: what a dashboard shows without the logs and manifests. */
const summary = (job: RlJobEntity) => ({
  id: job.id,
  status: job.status,
  trigger: job.trigger,
  template: job.template,
  runner: job.runner,
  checkpointId: job.checkpointId,
  experimentId: job.experimentId,
  reason: job.reason,
  createdAt: job.createdAt,
  updatedAt: job.updatedAt,
  finishedAt: job.finishedAt,
});

const detail = (job: RlJobEntity) => ({
  ...summary(job),
  hyperparameters: job.hyperparameters,
  requestedBy: job.requestedBy,
  externalId: job.externalId,
  dataset: job.dataset,
  metrics: job.metrics,
  output: job.output,
  gate: gateReportOf(job.gate),
  logsTail: job.logsTail,
  cancelRequested: job.cancelRequested,
});

/** RL refreshes: experimenters start and cancel them; analysts read them too. */
@Controller('v1/rl')
export class RlJobsController {
  constructor(
    private readonly jobs: RlJobsRepository,
    private readonly triggers: RefreshTriggers,
    private readonly driver: RefreshDriver,
  ) {}

  @Get('jobs')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ summary: 'RL jobs, newest first', response: rlJobList })
  async list(@Query(new ZodValidationPipe(listRlJobsQuery)) query: { limit: number }) {
    return { items: (await this.jobs.list(query.limit)).map(summary) };
  }

  @Post('jobs')
  @Roles('experimenter')
  @ApiDoc({ summary: 'Starts a refresh by hand (409 while one runs)', response: rlJobDetail })
  async create(
    @Body(new ZodValidationPipe(createRlJobSchema)) input: CreateRlJobInput,
    @Req() request: { principal?: { userId: string } },
  ) {
    const outcome = await this.triggers.request('manual', {
      reason: input.note ? `by hand: ${input.note}` : 'by hand',
      ...(input.template && { template: input.template }),
      ...(input.hyperparameters && { hyperparameters: input.hyperparameters }),
      requestedBy: input.onBehalfOf ?? request.principal?.userId ?? null,
    });
    if (!outcome.started) {
      throw new ConflictException({
        error: {
          code: 'refresh_running',
          message: 'A refresh is already running: cancel it or wait for it to end',
          details: { jobId: outcome.active?.id ?? null, status: outcome.active?.status ?? null },
        },
      });
    }
    return detail(outcome.job);
  }

  @Get('jobs/:id')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ response: rlJobDetail })
  async get(@Param('id', uuid) id: string) {
    const job = await this.jobs.get(id);
    if (!job) throw notFound();
    return detail(job);
  }

  @Post('jobs/:id/cancel')
  @HttpCode(202)
  @Roles('experimenter')
  @ApiDoc({ summary: 'Asks the job to stop (409 once it ended)', response: rlJobCancelled })
  async cancel(@Param('id', uuid) id: string) {
    const job = await this.jobs.get(id);
    if (!job) throw notFound();
    if (!(await this.jobs.requestCancel(id))) {
      throw new ConflictException({
        error: { code: 'job_ended', message: `The job already ended (${job.status})` },
      });
    }
    void this.driver.wake();
    return { id, status: job.status, cancelRequested: true };
  }

  /** The triggers: configuration, new data since the last refresh, and their recent decisions with reasons. */
  @Get('triggers')
  @Roles('experimenter', 'analyst')
  @ApiDoc({ response: rlTriggers })
  async triggerState() {
    const [data, decisions] = await Promise.all([this.triggers.newData(), this.jobs.decisions(50)]);
    return {
      schedule: { next: this.triggers.nextScheduledAt() },
      thresholds: this.triggers.thresholds(),
      newData: data,
      decisions,
    };
  }
}
