import { ApiDoc, ZodValidationPipe } from '@echoloop/platform';
import type { AdapterPlacementEntity, CheckpointEntity } from '@echoloop/persistence';
import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { Roles } from '../auth/auth.decorators';
import {
  checkpointList,
  checkpointView,
  createCheckpointSchema,
  type CreateCheckpointInput,
} from './checkpoint.schemas';
import { CheckpointsService } from './checkpoints.service';

const view = (c: CheckpointEntity, servedOn: readonly AdapterPlacementEntity[]) => ({
  id: c.id,
  modelName: c.modelName,
  endpoints: c.endpoints,
  decoding: c.decoding,
  contextTokens: c.contextTokens,
  adapterPath: c.adapterPath,
  servedOn: servedOn.map((p) => ({
    baseUrl: p.baseUrl,
    state: p.state,
    detail: p.detail,
    observedAt: p.observedAt,
  })),
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
    const [checkpoints, placements] = await Promise.all([
      this.checkpoints.list(),
      this.checkpoints.placements(),
    ]);
    return { items: checkpoints.map((c) => view(c, placements.get(c.id) ?? [])) };
  }

  @Post(':id/retire')
  @HttpCode(200)
  @Roles('experimenter')
  @ApiDoc({ summary: 'Retires a checkpoint: no new turn or experiment uses it', response: checkpointView })
  async retire(@Param('id') id: string) {
    const checkpoint = await this.checkpoints.retire(id);
    return view(checkpoint, (await this.checkpoints.placements(id)).get(id) ?? []);
  }

  @Post()
  @Roles('experimenter')
  @ApiDoc({ summary: 'Registers a checkpoint served by vLLM-compatible endpoints', response: checkpointView })
  async create(@Body(new ZodValidationPipe(createCheckpointSchema)) input: CreateCheckpointInput) {
    return view(await this.checkpoints.create(input), []);
  }
}
