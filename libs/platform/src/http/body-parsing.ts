import type { INestApplication } from '@nestjs/common';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { toClientError } from './client-errors';
import { unstorableInputError } from './storable-input.interceptor';

/** A route that needs a larger (or smaller) body than its app's default; `:name` matches one path segment. */
export interface RouteBodyLimit {
  method: 'POST' | 'PUT' | 'PATCH';
  path: string;
  bytes: number;
}

/**
 * How large a JSON (or form) body each route of an app accepts. Declared by each app next to its schemas, and
 * checked by a unit test against the largest body its schemas allow.
 */
export interface BodyLimits {
  defaultBytes: number;
  routes?: readonly RouteBodyLimit[];
}

/**
 * Replaces Nest's body parsers (100 kB everywhere) with the app's limits, and turns what they refuse into the
 * public error shape (413, 415, 400) before Nest maps a parse error to a message quoting the body. A body or
 * query holding text PostgreSQL cannot store is refused here too, like malformed JSON, before any guard runs.
 */
export function installBodyParsing(app: INestApplication, limits: BodyLimits): void {
  app.use(bodyParser(limits));
  app.use(((req, _res, next) => next(unstorableInputError(req))) as RequestHandler);
  app.use(((error, _req, _res, next) => next(toClientError(error) ?? error)) as ErrorRequestHandler);
}

function bodyParser(limits: BodyLimits): RequestHandler {
  const parsers = new Map<number, { json: RequestHandler; form: RequestHandler }>();
  const parsersFor = (bytes: number) => {
    let found = parsers.get(bytes);
    if (!found) {
      found = {
        json: express.json({ limit: bytes }),
        form: express.urlencoded({ limit: bytes, extended: true }),
      };
      parsers.set(bytes, found);
    }
    return found;
  };
  const routes = (limits.routes ?? []).map((route) => ({ ...route, pattern: patternOf(route.path) }));
  return (req, res, next) => {
    const route = routes.find((r) => r.method === req.method && r.pattern.test(req.path));
    const { json, form } = parsersFor(route?.bytes ?? limits.defaultBytes);
    json(req, res, (error?: unknown) => (error ? next(error) : form(req, res, next)));
  };
}

function patternOf(path: string): RegExp {
  const escaped = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${escaped}/?$`);
}
