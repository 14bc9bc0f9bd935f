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
