import { TOPICS } from '@echoloop/contracts';
import { LabelledTurnsSource } from '@echoloop/datasets';
import { ApiKeyGuard, ApiKeysModule, OUTBOX_RELAY_PROVIDERS, PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { EvalRunnerClient } from './clients/eval-runner.client';
import { GatewayClient } from './clients/gateway.client';
import { LabellerClient } from './clients/labeller.client';
import type { OrchestratorEnv } from './env';
import { GateService } from './gate/gate.service';
import { RlJobsController } from './api/rl-jobs.controller';
import { RlJobsRepository } from './jobs/rl-jobs.repository';
import { RefreshDriver } from './pipeline/refresh-driver';
import { RefreshStages } from './pipeline/refresh-stages';
import { JOB_RUNNER } from './runners/job-runner';
import { LocalJobRunner } from './runners/local-job-runner';
import { RayJobRunner } from './runners/ray-job-runner';
import { SERVICE_NAME } from './service-name';
import { AdapterPlacementsRepository } from './serving/adapter-placements.repository';
import { BaseWeights } from './serving/base-weights';
import { AdapterReconciler } from './serving/adapter-reconciler';
import { EngineAdapters } from './serving/engine-adapters';
import { GreedyReplies } from './serving/greedy-replies';
import { SnapshotBuilder } from './snapshot/snapshot-builder';
import { ORCHESTRATOR_ENV } from './tokens';
import { NewDataCounter } from './triggers/new-data.counter';
import { RefreshTriggers } from './triggers/refresh-triggers';

export const SERVICE = SERVICE_NAME;

@Module({})
export class AppModule {
  static register(env: OrchestratorEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          service: SERVICE,
          env,
          topics: [{ topic: TOPICS.rlJobStatus }, { topic: TOPICS.rlJobStatusV2 }],
        }),
        ApiKeysModule.forRoot({ service: SERVICE }),
      ],
      controllers: [RlJobsController],
      providers: [
        { provide: ORCHESTRATOR_ENV, useValue: env },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        {
          provide: JOB_RUNNER,
          useFactory: () =>
            env.RL_RUNNER === 'ray' ? new RayJobRunner(env.RAY_DASHBOARD_URL) : new LocalJobRunner(),
        },
        ...OUTBOX_RELAY_PROVIDERS,
        RlJobsRepository,
        {
          provide: LabelledTurnsSource,
          inject: [getDataSourceToken()],
          useFactory: (db: DataSource) => new LabelledTurnsSource(db),
        },
        SnapshotBuilder,
        GatewayClient,
        EvalRunnerClient,
        LabellerClient,
        EngineAdapters,
        AdapterPlacementsRepository,
        AdapterReconciler,
        BaseWeights,
        GreedyReplies,
        GateService,
        RefreshStages,
        RefreshDriver,
        NewDataCounter,
        RefreshTriggers,
      ],
    };
  }
}
