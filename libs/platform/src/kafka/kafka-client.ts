import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from 'pino';

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
}

const LEVELS: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** A kafkajs client whose own logs go through pino (structured, one line each). */
export function createKafka({ brokers, clientId }: KafkaSettings, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { initialRetryTime: 200, retries: 8, maxRetryTime: 5_000 },
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: { message, ...extra } }: LogEntry) =>
        log[LEVELS[level] ?? 'info'](extra, message),
  });
}
