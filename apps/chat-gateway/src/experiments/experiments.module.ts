import { Module } from '@nestjs/common';
import { CheckpointsModule } from '../checkpoints/checkpoints.module';
import { ExperimentRouter } from './experiment-router';
import { ExperimentsController } from './experiments.controller';
import { ExperimentsRepository } from './experiments.repository';
import { ExperimentsService } from './experiments.service';
import { ResultsService } from './results.service';

@Module({
  imports: [CheckpointsModule],
  controllers: [ExperimentsController],
  providers: [ExperimentsRepository, ExperimentsService, ExperimentRouter, ResultsService],
  exports: [ExperimentRouter],
})
export class ExperimentsModule {}
