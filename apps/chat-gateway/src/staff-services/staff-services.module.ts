import { Module } from '@nestjs/common';
import { EvalRunnerClient } from './eval-runner.client';
import { EvaluationsController } from './evaluations.controller';
import { RlJobsController } from './rl-jobs.controller';
import { RlOrchestratorClient } from './rl-orchestrator.client';

/**
 * The staff services the web app reaches through the gateway only: RL jobs (the RL orchestrator) and evaluations
 * (the eval-runner). Users' roles are checked here; the services see the gateway's own API key.
 */
@Module({
  controllers: [RlJobsController, EvaluationsController],
  providers: [RlOrchestratorClient, EvalRunnerClient],
})
export class StaffServicesModule {}
