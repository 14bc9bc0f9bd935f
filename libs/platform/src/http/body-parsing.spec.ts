import type { INestApplication } from '@nestjs/common';
import express, { type ErrorRequestHandler } from 'express';
import type { AddressInfo } from 'node:net';
import { installBodyParsing } from './body-parsing';

/** installBodyParsing on a bare Express app: which limit applies where, and what reaches the error handler. */
describe('installBodyParsing', () => {
  let url: string;
  let close: () => void;

  beforeAll(async () => {
    const app = express();
    installBodyParsing(app as unknown as INestApplication, {
      defaultBytes: 100,
      routes: [{ method: 'PATCH', path: '/v1/cards/:id', bytes: 1_000 }],
    });
    app.use((req, res) => res.json({ body: req.body as unknown }));
    app.use(((error: { getStatus?: () => number; getResponse?: () => unknown }, _req, res, _next) => {
      res.status(error.getStatus?.() ?? 500).json(error.getResponse?.() ?? { unexpected: true });
    }) as ErrorRequestHandler);
    const server = app.listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });

  afterAll(() => close());

  const send = async (method: string, path: string, body: string) => {
    const res = await fetch(`${url}${path}`, {
      method,
      body,
      headers: { 'content-type': 'application/json' },
    });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  };
  const sized = (bytes: number) => JSON.stringify({ t: 'x'.repeat(bytes - 8) });

  it('applies the default limit', async () => {
    expect((await send('POST', '/v1/cards/1', sized(100))).status).toBe(200);
    expect(await send('POST', '/v1/cards/1', sized(101))).toMatchObject({
      status: 413,
      body: { error: { code: 'payload_too_large', details: { limitBytes: 100 } } },
    });
  });

  it("applies a route's own limit to that method and path only, parameters included", async () => {
    expect((await send('PATCH', '/v1/cards/abc', sized(1_000))).status).toBe(200);
    expect((await send('PATCH', '/v1/cards/abc/', sized(1_000))).status).toBe(200);
    expect((await send('PATCH', '/v1/cards/abc', sized(1_001))).status).toBe(413);
    expect((await send('PATCH', '/v1/cards/abc/more', sized(101))).status).toBe(413);
  });

  it('refuses a body holding a NUL before any route, naming where', async () => {
    expect(await send('POST', '/x', '{"a":["\\u0000"]}')).toMatchObject({
      status: 400,
      body: { error: { code: 'validation_failed', details: [{ path: 'a.0', in: 'body' }] } },
    });
  });

  it('turns a parse error into the public shape', async () => {
    expect(await send('POST', '/x', '{')).toMatchObject({
      status: 400,
      body: { error: { code: 'malformed_body' } },
    });
  });
});
