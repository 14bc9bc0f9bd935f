import { TOPICS } from '@echoloop/contracts';
import { ApiKeyGuard, ApiKeysModule, OUTBOX_RELAY_PROVIDERS, PlatformModule } from '@echoloop/platform';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { LabellerEnv } from './env';
import { ConsumerProgress } from './labelling/consumer-progress';
import { FeedbackIntakeService } from './intake/feedback-intake.service';
import { TurnIntakeService } from './intake/turn-intake.service';
import { JudgeRunner } from './judges/judge-runner';
import { ComponentJudges } from './labelling/component-judges';
import { FeedbackStore } from './labelling/feedback-store';
import { LabelStore } from './labelling/label-store';
import { LabelRetrier } from './labelling/label-retrier.service';
import { LabelRetriesRepository } from './labelling/label-retries.repository';
import { LeaveSweeper } from './labelling/leave-sweeper.service';
import { TurnLabeller } from './labelling/turn-labeller.service';
import { ScoreController } from './scoring/score.controller';
import { LABELLER_ENV } from './tokens';

export const SERVICE = 'reward-labeller';

@Module({})
export class AppModule {
  /** `consume: false` leaves out the Kafka consumers and the leave sweeper (backfills, one-off tools). */
  static register(env: LabellerEnv, { consume = true } = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        PlatformModule.forRoot({
          service: SERVICE,
          env,
          topics: [
            { topic: TOPICS.chatTurnCompleted },
            { topic: TOPICS.chatFeedbackV1 },
            { topic: TOPICS.chatFeedbackV2 },
            { topic: TOPICS.rewardTurnLabelled },
          ],
        }),
        ApiKeysModule.forRoot({ service: SERVICE }),
      ],
      controllers: [ScoreController],
      providers: [
        { provide: LABELLER_ENV, useValue: env },
        { provide: APP_GUARD, useClass: ApiKeyGuard },
        ...OUTBOX_RELAY_PROVIDERS,
        JudgeRunner,
        ComponentJudges,
        LabelStore,
        FeedbackStore,
        TurnLabeller,
        ConsumerProgress,
        LabelRetriesRepository,
        ...(consume ? [LeaveSweeper, LabelRetrier, TurnIntakeService, FeedbackIntakeService] : []),
      ],
    };
  }
}
