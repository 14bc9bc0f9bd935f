import type { INestApplication } from '@nestjs/common';
import express, { type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** Paths the web app never answers: the API, its documents, probes, metrics and the sockets. */
const API_PATH = /^\/(v1|docs|health|metrics|socket\.io)(\/|$)/;

/**
 * Serves the built web app (apps/web) from `dir` at `/`, with index.html for every other GET of a page (the app
 * routes in the browser). Nothing when the folder holds no build, and never for an API path, so those keep their
 * JSON answers (404 included).
 */
export function webAppHandler(dir: string): RequestHandler | null {
  const root = path.resolve(dir);
  const index = path.join(root, 'index.html');
  if (!existsSync(index)) return null;
  const assets = express.static(root, {
    index: false,
    // Vite names built assets by their hash: they never change. Anything else is checked every time.
    setHeaders: (res, file) =>
      res.setHeader(
        'Cache-Control',
        file.startsWith(path.join(root, 'assets') + path.sep)
          ? 'public, max-age=31536000, immutable'
          : 'no-cache',
      ),
  });
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || API_PATH.test(req.path)) return next();
    assets(req, res, () => {
      // A missing asset file is a 404, not the page; anything else is a page address.
      if (req.path.startsWith('/assets/') || !req.accepts('html')) return next();
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    });
  };
}

export function serveWebApp(app: INestApplication, dir: string): void {
  const handler = webAppHandler(dir);
  if (handler) app.use(handler);
}
