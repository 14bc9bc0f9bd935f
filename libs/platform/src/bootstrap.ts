import 'reflect-metadata';
import { startTracing } from '@echoloop/tracing';
import type { INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { type BodyLimits, installBodyParsing } from './http/body-parsing';
import { installRequestTracing } from './http/request-tracing';
import { createLogger } from './logging/logger';
import { MetricsService } from './metrics/metrics.service';
import { handleProcessErrors } from './process/process-errors';

/** How long an app ending after an uncaught exception may take to close before it exits anyway. */
const FATAL_CLOSE_MS = 10_000;

export interface BootstrapOptions<E> {
  service: string;
  /** Validates the environment; throwing here stops the app with the message (see loadEnv). */
  loadEnv: () => E;
  module: (env: E) => Type | import('@nestjs/common').DynamicModule;
  port: (env: E) => number;
  host: (env: E) => string;
  /** How large a body each route accepts (see BodyLimits); every app declares its own. */
  bodyLimits: (env: E) => BodyLimits;
  /** Express middleware of this app only, installed after body parsing and before Nest's routes. */
  configure?: (app: INestApplication, env: E) => void;
}

/**
 * Starts an app: validated config first, then tracing (when OTEL_EXPORTER_OTLP_ENDPOINT is set), Nest with pino
 * logs, shutdown hooks and the HTTP port.
 */
export async function bootstrap<E>(options: BootstrapOptions<E>): Promise<INestApplication> {
  let env: E;
  try {
    env = options.loadEnv();
  } catch (error) {
    createLogger({ service: options.service, level: 'info' }).fatal(
      error instanceof Error ? error.message : String(error),
    );
    process.exit(1);
  }
  const tracing = startTracing(options.service);
  const app = await NestFactory.create(options.module(env), { bufferLogs: true, bodyParser: false });
  app.useLogger(app.get(Logger));
  if (tracing) installRequestTracing(app);
  installBodyParsing(app, options.bodyLimits(env));
  options.configure?.(app, env);
  app.enableShutdownHooks();
  await app.listen(options.port(env), options.host(env));
  const logger = app.get(Logger);
  handleProcessErrors({
    error: (fields, message) => logger.error(fields, message),
    fatal: (fields, message) => logger.fatal(fields, message),
    counter: app
      .get(MetricsService)
      .counter('process_errors_total', 'Errors nothing handled, by kind (an uncaught one ends the process)', [
        'kind',
      ]),
    exit: () => {
      setTimeout(() => process.exit(1), FATAL_CLOSE_MS).unref();
      void app.close().finally(() => process.exit(1));
    },
  });
  logger.log(`${options.service} listening on ${await app.getUrl()}`);
  return app;
}
