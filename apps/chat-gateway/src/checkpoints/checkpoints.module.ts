import { AdapterPlacementEntity, CheckpointEntity } from '@echoloop/persistence';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CheckpointsController } from './checkpoints.controller';
import { CheckpointsRepository } from './checkpoints.repository';
import { CheckpointsService } from './checkpoints.service';

@Module({
  imports: [TypeOrmModule.forFeature([CheckpointEntity, AdapterPlacementEntity])],
  controllers: [CheckpointsController],
  providers: [CheckpointsService, CheckpointsRepository],
  exports: [CheckpointsService],
})
export class CheckpointsModule {}
