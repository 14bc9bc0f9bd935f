import { startApp, waitFor, type AppProcess } from '@echoloop/testing';
import path from 'node:path';

const PRELOAD = path.resolve(__dirname, 'process-errors.preload.cjs');

/** The app's JSON log lines that carry a process error of this kind. */
const logLines = (app: AppProcess, kind: string) =>
  app
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>)
    .filter((line) => line['kind'] === kind);

describe('errors nothing handled, in a running app', () => {
  let app: AppProcess;
  let pid: number;

  beforeAll(async () => {
    const previous = process.env['APP_NODE_ARGS'];
    process.env['APP_NODE_ARGS'] = `${previous ?? ''} -r ${PRELOAD}`;
    try {
      app = await startApp('rl-orchestrator', { RL_DRIVE_JOBS: 'false' });
    } finally {
      if (previous === undefined) delete process.env['APP_NODE_ARGS'];
      else process.env['APP_NODE_ARGS'] = previous;
    }
    pid = Number(/FAULT_PID (\d+)/.exec(app.logs())?.[1]);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('a rejected promise nobody awaited is logged and counted, and the app goes on serving', async () => {
    process.kill(pid, 'SIGWINCH');
    await waitFor(
      async () =>
        /process_errors_total\{[^}]*kind="unhandled_rejection"[^}]*\} 1/.test(
          await (await fetch(`${app.url}/metrics`)).text(),
        ),
      { what: 'the rejection counted', timeoutMs: 10_000 },
    );
    expect(logLines(app, 'unhandled_rejection')).toEqual([
      expect.objectContaining({ err: expect.objectContaining({ message: 'a rejection nothing handles' }) }),
    ]);
    expect((await fetch(`${app.url}/health/live`)).status).toBe(200);
  });

  it('an uncaught exception is logged as fatal, then ends the process on purpose with a non-zero code', async () => {
    process.kill(pid, 'SIGWINCH');
    expect(await app.exited).toBe(1);
    expect(logLines(app, 'uncaught_exception')).toEqual([
      expect.objectContaining({ err: expect.objectContaining({ message: 'an exception nothing catches' }) }),
    ]);
  });
});
