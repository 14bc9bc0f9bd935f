import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import type { CheckpointEntity } from '@echoloop/persistence';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Roles } from '../auth/auth.decorators';
import {
  checkpointList,
  checkpointView,
  createCheckpointSchema,
  type CreateCheckpointInput,
} from './checkpoint.schemas';
import { CheckpointsService } from './checkpoints.service';

const view = (c: CheckpointEntity) => ({
  id: c.id,
  modelName: c.modelName,
  endpoints: c.endpoints,
  decoding: c.decoding,
  contextTokens: c.contextTokens,
  status: c.status,
  isDefault: c.isDefault,
  createdAt: c.createdAt,
});

@Controller('v1/checkpoints')
export class CheckpointsController {
  constructor(private readonly checkpoints: CheckpointsService) {}

  @Get()
  @Roles('experimenter', 'analyst')
  @ApiDoc({
    summary: 'The registered checkpoints (the default, candidates, retired ones)',
    response: checkpointList,
  })
  async list() {
    return { items: (await this.checkpoints.list()).map(view) };
  }

  @Post(':id/retire')
  @HttpCode(200)
  @Roles('experimenter')
  @ApiDoc({ summary: 'Retires a checkpoint: no new turn or experiment uses it', response: checkpointView })
  async retire(@Param('id') id: string) {
    return view(await this.checkpoints.retire(id));
  }

  @Post()
  @Roles('experimenter')
  @ApiDoc({ summary: 'Registers a checkpoint served by vLLM-compatible endpoints', response: checkpointView })
  async create(@Body(new ZodValidationPipe(createCheckpointSchema)) input: CreateCheckpointInput) {
    return view(await this.checkpoints.create(input));
  }
}
