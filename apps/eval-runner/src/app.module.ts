import { ApiKeyGuard, ApiKeysModule, PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SentientCatalog } from './catalog';
import type { EvalRunnerEnv } from './env';
import { EvaluationsController } from './evaluations/evaluations.controller';
import { EvaluationsRepository } from './evaluations/evaluations.repository';
import { EvaluationsService } from './evaluations/evaluations.service';
import { SimulatorSessionsController } from './simulator/simulator-sessions.controller';
import { SimulatorSessionsRepository } from './simulator/simulator-sessions.repository';
import { SimulatorSessionsService } from './simulator/simulator-sessions.service';
import { EVAL_RUNNER_ENV } from './tokens';

export const SERVICE = 'eval-runner';

@Module({})
export class AppModule {
  static register(env: EvalRunnerEnv): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({ service: SERVICE, env, topics: [] }),
        ApiKeysModule.forRoot({ service: SERVICE }),
      ],
      controllers: [EvaluationsController, SimulatorSessionsController],
      providers: [
        { provide: EVAL_RUNNER_ENV, useValue: env },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        SentientCatalog,
        EvaluationsRepository,
        EvaluationsService,
        SimulatorSessionsRepository,
        SimulatorSessionsService,
      ],
    };
  }
}
