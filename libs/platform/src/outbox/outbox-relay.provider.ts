import {
  Inject,
  Injectable,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  type Provider,
} from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { PinoLogger } from 'nestjs-pino';
import type { DataSource } from 'typeorm';
import { EventPublisher } from '../kafka/event-publisher';
import { MetricsService } from '../metrics/metrics.service';
import type { ServiceEnv } from '@echoloop/config';
import { SERVICE_ENV } from '../service-env';
import { OutboxRelay } from './outbox-relay';

/** Runs the outbox relay for as long as the app runs. */
@Injectable()
class OutboxRelayLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(OutboxRelay) private readonly relay: OutboxRelay) {}
  onApplicationBootstrap(): void {
    this.relay.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}

/** The providers of an app that writes events to the outbox: the relay, started and stopped with the app. */
export const OUTBOX_RELAY_PROVIDERS: Provider[] = [
  OutboxRelayLifecycle,
  {
    provide: OutboxRelay,
    inject: [getDataSourceToken(), EventPublisher, MetricsService, PinoLogger, SERVICE_ENV],
    useFactory: (
      db: DataSource,
      publisher: EventPublisher,
      metrics: MetricsService,
      logger: PinoLogger,
      env: ServiceEnv,
    ) =>
      new OutboxRelay(db, publisher, metrics, logger.logger, {
        batchSize: 500,
        // A safety net: commits wake the relay through PostgreSQL (LISTEN/NOTIFY), so it does not poll.
        idleMs: 5_000,
        maxBackoffMs: 5_000,
        retainPublishedMs: env.OUTBOX_RETENTION_HOURS * 3_600_000,
        listen: { connectionString: env.DATABASE_URL, applicationName: 'outbox-relay' },
      }),
  },
];
