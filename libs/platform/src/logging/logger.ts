import pino, { type Logger, type LoggerOptions } from 'pino';
import { errorSerializer, requestSerializer, responseSerializer } from './log-serializers';

/** Paths whose values never reach a log line: credentials, tokens and anything else secret. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'passwordHash',
  '*.passwordHash',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
];

export interface LoggerSettings {
  service: string;
  level: string;
}

export function loggerOptions({ service, level }: LoggerSettings): LoggerOptions {
  return {
    level,
    // The pid tells apart the processes of one service writing to one log (GATEWAY_WORKERS).
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Ids and codes only: no query strings, headers, bodies or the data a database error was raised about.
    serializers: {
      err: errorSerializer,
      error: errorSerializer,
      req: requestSerializer,
      res: responseSerializer,
    },
    hooks: {
      // `logger.error(err)` would make the error's raw message the line's `msg`.
      logMethod(args, method) {
        const [first, second] = args as unknown[];
        if (first instanceof Error && typeof second !== 'string') {
          const { message } = errorSerializer(first) as { message?: string };
          return method.apply(this, [first, message ?? first.name]);
        }
        return method.apply(this, args);
      },
    },
    formatters: { level: (label) => ({ level: label }) },
  };
}

export function createLogger(settings: LoggerSettings): Logger {
  return pino(loggerOptions(settings));
}
