import { Writable } from 'node:stream';
import pino from 'pino';
import { loggerOptions } from './logger';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino(loggerOptions({ service: 'svc', level: 'info' }), stream) };
}

describe('structured logging', () => {
  it('writes one JSON object per line with service, level and time', () => {
    const { lines, logger } = capture();
    logger.info({ conversationId: 'c1' }, 'turn stored');
    expect(lines[0]).toMatchObject({
      service: 'svc',
      level: 'info',
      msg: 'turn stored',
      conversationId: 'c1',
    });
    expect(typeof lines[0]?.['time']).toBe('string');
  });

  it('never writes secrets', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        password: 'hunter2',
        user: { password: 'hunter2', apiKey: 'sk-live' },
        req: { headers: { authorization: 'Bearer abc.def' } },
      },
      'login',
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toMatch(/hunter2|sk-live|abc\.def/);
    expect(text).toContain('[redacted]');
  });
});

describe('log hygiene: ids and codes, never user text', () => {
  const MARK = 'Zq9-secret-garden';

  it('drops the SQL, parameters and driver details of a database error, keeping its type and code', () => {
    const { lines, logger } = capture();
    const driverError = Object.assign(new Error(`invalid input syntax for type uuid: "${MARK}"`), {
      code: '22P02',
      detail: `Key (content)=(${MARK}) already exists.`,
    });
    const error = Object.assign(new Error(`invalid input syntax for type uuid: "${MARK}"`), {
      name: 'QueryFailedError',
      code: '22P02',
      query: 'INSERT INTO outbox (payload) VALUES ($1)',
      parameters: [{ userMessage: { content: MARK } }],
      driverError,
    });
    logger.error({ err: error, replyId: 'r1' }, 'turn failed');
    logger.error(error);
    logger.warn({ error }, 'also under another key');
    const text = JSON.stringify(lines);
    expect(text).not.toContain(MARK);
    expect(text).not.toContain('INSERT INTO');
    expect(lines[0]).toMatchObject({
      replyId: 'r1',
      err: { type: 'Error', code: '22P02', message: 'invalid input syntax for type uuid' },
    });
  });

  it('logs a request by id, method and path: no query string, no headers, no text in the path', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: {
          id: 7,
          method: 'GET',
          url: `/v1/conversations/2f0c7f5e-8a3b-4c1d-9e2f-0a1b2c3d4e5f/messages/${MARK}?q=${MARK}`,
          headers: { referer: `https://x/?q=${MARK}` },
        },
        res: { statusCode: 404, headers: { 'x-echo': MARK } },
      },
      'request completed',
    );
    expect(JSON.stringify(lines)).not.toContain(MARK);
    expect(lines[0]).toMatchObject({
      req: {
        id: 7,
        method: 'GET',
        path: '/v1/conversations/2f0c7f5e-8a3b-4c1d-9e2f-0a1b2c3d4e5f/messages/:value',
      },
      res: { statusCode: 404 },
    });
  });
});
