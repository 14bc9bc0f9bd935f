import { MetricsService } from '@echoloop/platform';
import { waitFor } from '@echoloop/testing';
import { Test } from '@nestjs/testing';
import { PinoLogger } from 'nestjs-pino';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { labellerEnv } from '../env';
import { LABELLER_ENV } from '../tokens';
import { JudgeRunner } from './judge-runner';

const answer = JSON.stringify({ choices: [{ message: { content: 'Verdict: 4' }, finish_reason: 'stop' }] });

/**
 * A judge endpoint (idle by vLLM's load gauge; `handle` answers its chat requests) and a JudgeRunner on it.
 * Returns the runner and a function that closes both.
 */
async function runnerOn(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  env: Record<string, string>,
) {
  const server = createServer((req, res) => {
    if (req.url === '/metrics') return void res.end('vllm:num_requests_running{engine="0"} 0.0\n');
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const module = await Test.createTestingModule({
    providers: [
      JudgeRunner,
      {
        provide: LABELLER_ENV,
        useValue: labellerEnv.parse({
          DATABASE_URL: 'postgres://u:p@127.0.0.1:1/db',
          JUDGE_BASE_URL: `http://127.0.0.1:${port}/v1`,
          ...env,
        }),
      },
      { provide: PinoLogger, useValue: { warn: () => undefined } },
      { provide: MetricsService, useValue: new MetricsService('test') },
    ],
  }).compile();
  const runner = module.get(JudgeRunner);
  const close = async () => {
    runner.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { runner, close };
}

describe('JudgeRunner', () => {
  it('builds a prompt only once its call has a slot, so queued calls hold no prompts', async () => {
    const held: ServerResponse[] = [];
    const { runner, close } = await runnerOn(
      (req, res) => {
        req.resume();
        req.on('end', () => held.push(res));
      },
      { JUDGE_CONCURRENCY: '1' },
    );
    const built: string[] = [];
    const call = (name: string) =>
      runner.judge({
        component: 'empathy',
        messages: () => {
          built.push(name);
          return [{ role: 'user', content: name }];
        },
        parse: (text) => ({ ok: true, value: text }),
        correction: () => 'again',
      });

    // The server holds each request it receives until answered below: a call's request there means its slot.
    const requestHeld = () => waitFor(() => held.length === 1, { intervalMs: 5, what: 'a request held' });
    const first = call('first');
    const second = call('second');
    await requestHeld();
    expect(built).toEqual(['first']);

    held.shift()!.end(answer);
    await first;
    await requestHeld();
    expect(built).toEqual(['first', 'second']);
    held.shift()!.end(answer);
    await expect(second).resolves.toMatchObject({ ok: true, value: 'Verdict: 4' });

    await close();
  });

  it.each([
    ['on', 'true', { structured_outputs: { regex: 'Verdict: [1-5]' } }],
    ['off', 'false', {}],
  ])(
    'asks the engine for the verdict’s shape only with JUDGE_CONSTRAIN_ANSWERS %s',
    async (_, flag, expected) => {
      const bodies: Record<string, unknown>[] = [];
      const { runner, close } = await runnerOn(
        (req, res) => {
          let body = '';
          req.on('data', (chunk: Buffer) => (body += chunk.toString()));
          req.on('end', () => {
            bodies.push(JSON.parse(body) as Record<string, unknown>);
            res.end(answer);
          });
        },
        { JUDGE_CONSTRAIN_ANSWERS: flag },
      );

      const outcome = await runner.judge({
        component: 'empathy',
        messages: () => [{ role: 'user', content: 'Rate it.' }],
        parse: (text) => ({ ok: true, value: text }),
        correction: () => 'again',
        pattern: 'Verdict: [1-5]',
      });

      expect(outcome).toMatchObject({ ok: true, value: 'Verdict: 4' });
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toMatchObject({ temperature: 0, priority: 2, ...expected });
      if (flag === 'false') expect(bodies[0]).not.toHaveProperty('structured_outputs');
      await close();
    },
  );
});
