import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions, PreparedStatements } from '@echoloop/persistence';
import type { Kafka } from 'kafkajs';
import { LoggerModule, PinoLogger } from 'nestjs-pino';
import { CLOCK, systemClock } from './clock';
import { SERVICE_ENV } from './service-env';
import { DatabaseHealthIndicator } from './health/database.health';
import { HealthController } from './health/health.controller';
import { HEALTH_INDICATORS, type HealthIndicator } from './health/health-indicator';
import { ErrorFilter } from './http/error.filter';
import { StorableInputInterceptor } from './http/storable-input.interceptor';
import { createKafka } from './kafka/kafka-client';
import { KafkaHealthIndicator } from './kafka/kafka.health';
import { KafkaLifecycle } from './kafka/kafka-lifecycle';
import { KAFKA, KAFKA_TOPICS } from './kafka/kafka.tokens';
import { EventPublisher } from './kafka/event-publisher';
import type { TopicSpec } from './kafka/topic-admin';
import { loggerOptions } from './logging/logger';
import { HttpMetricsMiddleware } from './metrics/http-metrics.middleware';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsService } from './metrics/metrics.service';
import { DocsController, OPENAPI_TITLE } from './openapi/docs.controller';
import { ResponseContractInterceptor } from './openapi/response-contract.interceptor';
import { TracingShutdown } from './process/tracing-shutdown';
import { deadLetterTopic } from '@echoloop/contracts';
import type { ServiceEnv } from '@echoloop/config';

export interface PlatformOptions {
  service: string;
  env: ServiceEnv;
  /** Topics this app produces to or consumes from; they and their dead-letter topics are created at start-up. */
  topics: readonly TopicSpec[];
}

const QUIET_ROUTES = ['/health', '/metrics'];

/**
 * What every Echoloop app has: pino logs, Prometheus metrics, liveness and readiness that check PostgreSQL and
 * Kafka for real, the database connection, an idempotent Kafka producer, and `/docs` (OpenAPI of every route).
 */
@Module({})
export class PlatformModule implements NestModule {
  static forRoot({ service, env, topics }: PlatformOptions): DynamicModule {
    const retentionMs = env.KAFKA_RETENTION_HOURS * 3_600_000;
    const database = { url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE, applicationName: service };
    const allTopics = [...topics, ...topics.map((t) => ({ ...t, topic: deadLetterTopic(t.topic) }))].map(
      (t) => ({ retentionMs, ...t }),
    );
    return {
      module: PlatformModule,
      global: true,
      imports: [
        DiscoveryModule,
        LoggerModule.forRoot({
          pinoHttp: {
            ...loggerOptions({ service, level: env.LOG_LEVEL }),
            autoLogging: { ignore: (req) => QUIET_ROUTES.some((route) => req.url?.startsWith(route)) },
          },
        }),
        TypeOrmModule.forRoot(dataSourceOptions({ ...database, keepConnections: true })),
      ],
      controllers: [HealthController, MetricsController, DocsController],
      providers: [
        { provide: MetricsService, useValue: new MetricsService(service) },
        { provide: PreparedStatements, useFactory: () => new PreparedStatements(database) },
        { provide: CLOCK, useValue: systemClock },
        { provide: SERVICE_ENV, useValue: env },
        { provide: OPENAPI_TITLE, useValue: service },
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_INTERCEPTOR, useClass: StorableInputInterceptor },
        { provide: APP_INTERCEPTOR, useClass: ResponseContractInterceptor },
        {
          provide: KAFKA,
          inject: [PinoLogger],
          useFactory: (logger: PinoLogger) =>
            createKafka(
              { brokers: env.KAFKA_BROKERS, clientId: env.KAFKA_CLIENT_ID ?? service },
              logger.logger,
            ),
        },
        { provide: KAFKA_TOPICS, useValue: allTopics },
        KafkaLifecycle,
        { provide: EventPublisher, inject: [KAFKA], useFactory: (kafka: Kafka) => new EventPublisher(kafka) },
        {
          provide: KafkaHealthIndicator,
          inject: [KAFKA],
          useFactory: (kafka: Kafka) => new KafkaHealthIndicator(kafka),
        },
        DatabaseHealthIndicator,
        TracingShutdown,
        {
          provide: HEALTH_INDICATORS,
          inject: [DatabaseHealthIndicator, KafkaHealthIndicator],
          useFactory: (...indicators: HealthIndicator[]) => indicators,
        },
      ],
      exports: [
        MetricsService,
        PreparedStatements,
        CLOCK,
        SERVICE_ENV,
        KAFKA,
        EventPublisher,
        KafkaLifecycle,
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(HttpMetricsMiddleware).forRoutes('*');
  }
}
