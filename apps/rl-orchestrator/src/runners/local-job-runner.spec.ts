import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@echoloop/testing';
import { LocalJobRunner } from './local-job-runner';

/** Real child processes (node itself as the "template"): the runner's states, logs and stop. */
describe('LocalJobRunner', () => {
  let dir: string;
  const runner = new LocalJobRunner();
  const spec = (jobId: string, script: string) => ({
    jobId,
    argv: [process.execPath, '-e', script],
    env: { ECHOLOOP_TEST_VALUE: 'from-env' },
    gpus: 0,
    logFile: path.join(dir, jobId, 'job.log'),
  });
  const ended = (id: string) =>
    waitFor(async () => {
      const status = await runner.status(id);
      return status.state !== 'running' && status;
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'local-runner-'));
  });
  afterAll(async () => {
    runner.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the job with its environment and keeps its output as the log', async () => {
    const id = await runner.submit(
      spec(
        'ok',
        `console.log('ECHOLOOP_PROGRESS {"stage":"train","step":1}'); console.error(process.env.ECHOLOOP_TEST_VALUE)`,
      ),
    );
    expect(await ended(id)).toEqual({ state: 'succeeded' });
    const logs = await runner.logs(id);
    expect(logs).toContain('ECHOLOOP_PROGRESS {"stage":"train","step":1}');
    expect(logs).toContain('from-env');
  });

  it('submitting the same job twice starts one process', async () => {
    const first = await runner.submit(spec('once', 'setTimeout(() => {}, 200)'));
    expect(await runner.submit(spec('once', 'process.exit(3)'))).toBe(first);
    expect(await ended(first)).toEqual({ state: 'succeeded' });
  });

  it('a non-zero exit is a failure that says its code', async () => {
    const id = await runner.submit(spec('bad', 'process.exit(2)'));
    expect(await ended(id)).toEqual({ state: 'failed', message: 'exited with code 2' });
  });

  it('stop ends a running job for real', async () => {
    const id = await runner.submit(spec('long', 'setInterval(() => {}, 1000)'));
    expect((await runner.status(id)).state).toBe('running');
    await runner.stop(id);
    expect(await ended(id)).toMatchObject({ state: 'stopped' });
  });

  it('a job it never ran (another process ran it) is lost, not running', async () => {
    expect(await runner.status('local-unknown')).toMatchObject({ state: 'lost' });
  });
});
