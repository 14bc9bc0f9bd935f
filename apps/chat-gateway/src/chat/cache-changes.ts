import { CACHE_CHANGES_CHANNEL } from '@echoloop/persistence';
import { PgListener } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { TurnInputsCache } from '../conversations/turn-inputs-cache';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ExperimentRouter } from '../experiments/experiment-router';

/**
 * Drops this process's cached copy of a checkpoint, the running experiment, or the turn guesses that carry a
 * character's card, as soon as any process (another gateway, the RL orchestrator, an admin script) commits a change:
 * the triggers NOTIFY whoever changed the row. The caches' TTLs stay the bound when a notification is lost; after a
 * lost connection everything is dropped.
 */
@Injectable()
export class CacheChanges implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly listener: PgListener;

  constructor(
    private readonly checkpoints: CheckpointsService,
    private readonly router: ExperimentRouter,
    private readonly guesses: TurnInputsCache,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
    logger: PinoLogger,
  ) {
    this.listener = new PgListener({
      connectionString: env.DATABASE_URL,
      channel: CACHE_CHANGES_CHANNEL,
      applicationName: 'chat-gateway-cache-changes',
      onNotification: (payload) => this.changed(payload),
      onListening: () => this.changed('*'),
      logger: logger.logger,
    });
  }

  onApplicationBootstrap(): void {
    this.listener.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.listener.stop();
  }

  /** `kind:id`, or `*` for everything. */
  changed(payload: string): void {
    const [kind, id] = payload === '*' ? ['*', undefined] : payload.split(':', 2);
    if (kind === 'checkpoint' || kind === '*') this.checkpoints.forget(id);
    if (kind === 'experiment' || kind === '*') this.router.invalidate();
    if (kind === 'character' || kind === '*') this.guesses.forgetCharacter(id);
  }
}
