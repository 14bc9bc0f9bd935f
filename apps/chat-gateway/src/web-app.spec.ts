import express from 'express';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { webAppHandler } from './web-app';

describe('webAppHandler', () => {
  let dir: string;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'web-app-'));
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>Echoloop</title>');
    mkdirSync(path.join(dir, 'assets'));
    writeFileSync(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
    const handler = webAppHandler(dir);
    if (!handler) throw new Error('expected a handler');
    const app = express();
    app.use(handler);
    // What Nest answers for a route it does not know.
    app.use((_req, res) => void res.status(404).json({ error: { code: 'not_found', message: 'Not found' } }));
    server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves index.html at / and at page addresses', async () => {
    for (const page of ['/', '/chat/7d0c9f7e-2f5b-4c8e-9a55-0d8f1f6c1e11', '/sign-in']) {
      const res = await fetch(url + page, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<title>Echoloop</title>');
    }
  });

  it('serves built assets as immutable, and a missing one is a 404', async () => {
    const asset = await fetch(`${url}/assets/index-abc.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${url}/assets/gone.js`, { headers: { accept: 'text/html' } })).status).toBe(404);
  });

  it.each(['/v1/nothing-here', '/v1', '/docs/missing', '/health/nope', '/metrics/x', '/socket.io/x'])(
    'never answers the API path %s',
    async (apiPath) => {
      const res = await fetch(url + apiPath, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Not found' } });
    },
  );

  it('leaves other methods to the API', async () => {
    expect((await fetch(`${url}/`, { method: 'POST' })).status).toBe(404);
  });

  it('is off when the folder holds no build', () => {
    expect(webAppHandler(path.join(dir, 'missing'))).toBeNull();
  });
});
