import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { sendStream } from './send-stream';

/** A real HTTP server whose one route sends the given source with sendStream. */
async function serve(source: () => Readable, contentLength?: number) {
  const sink = { warn: jest.fn() };
  const results: Promise<boolean>[] = [];
  const server: Server = createServer((_req, res) => {
    if (contentLength !== undefined) res.setHeader('Content-Length', String(contentLength));
    results.push(sendStream(source(), res, 'export download', sink));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return {
    sink,
    results,
    url,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** The body as the client got it, and whether the connection broke before its end. */
const fetchBody = (url: string) =>
  new Promise<{ body: string; aborted: boolean }>((resolve, reject) => {
    get(url, (res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ body, aborted: false }));
      res.on('error', () => resolve({ body, aborted: true }));
      res.on('aborted', () => resolve({ body, aborted: true }));
    }).on('error', reject);
  });

describe('sendStream', () => {
  it('sends the whole stream', async () => {
    const s = await serve(() => Readable.from(['one ', 'two']), 7);
    expect(await fetchBody(s.url)).toEqual({ body: 'one two', aborted: false });
    expect(await s.results[0]).toBe(true);
    expect(s.sink.warn).not.toHaveBeenCalled();
    await s.close();
  });

  it('cuts the response short and logs when the source fails midway; nothing is thrown', async () => {
    const failing = () =>
      new Readable({
        read() {
          if (this.readableLength > 0 || this.destroyed) return;
          this.push('first part ');
          setImmediate(() => this.destroy(Object.assign(new Error('ENOENT: gone'), { code: 'ENOENT' })));
        },
      });
    const s = await serve(failing, 1_000);
    const got = await fetchBody(s.url);
    expect(got.aborted).toBe(true);
    expect(got.body.length).toBeLessThan(1_000);
    expect(await s.results[0]).toBe(false);
    expect(s.sink.warn).toHaveBeenCalledWith(
      { err: expect.objectContaining({ code: 'ENOENT' }), what: 'export download' },
      expect.stringContaining('source failed'),
    );
    await s.close();
  });
});
