import { ZodValidationPipe } from '@echoloop/platform';
import type { CheckpointEntity } from '@echoloop/persistence';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Roles } from '../auth/auth.decorators';
import { createCheckpointSchema, type CreateCheckpointInput } from './checkpoint.schemas';
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
  async list() {
    return { items: (await this.checkpoints.list()).map(view) };
  }

  @Post(':id/retire')
  @HttpCode(200)
  @Roles('experimenter')
  async retire(@Param('id') id: string) {
    return view(await this.checkpoints.retire(id));
  }

  @Post()
  @Roles('experimenter')
  async create(@Body(new ZodValidationPipe(createCheckpointSchema)) input: CreateCheckpointInput) {
    return view(await this.checkpoints.create(input));
  }
}
