import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RayJobRunner, shellQuote } from './ray-job-runner';

describe('shellQuote (Ray runs the entrypoint through a shell)', () => {
  it('leaves plain words alone and quotes the rest so the shell gives them back unchanged', () => {
    expect(shellQuote('/venv/bin/python')).toBe('/venv/bin/python');
    expect(shellQuote('--learning-rate=5e-4')).toBe('--learning-rate=5e-4');
    expect(shellQuote('a dir/with space')).toBe(`'a dir/with space'`);
    expect(shellQuote(`it's; rm -rf / $(x)`)).toBe(`'it'\\''s; rm -rf / $(x)'`);
  });
});

describe('RayJobRunner.submit', () => {
  const submitted = async (gpus: number) => {
    let body: Record<string, unknown> = {};
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        body = JSON.parse(text) as Record<string, unknown>;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"submission_id":"x"}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const runner = new RayJobRunner(`http://127.0.0.1:${port}`);
      await runner.submit({
        jobId: 'j1',
        argv: ['python', '-m', 'x'],
        env: {},
        gpus,
        logFile: '/tmp/j1.log',
      });
    } finally {
      server.close();
    }
    return body;
  };

  it('asks Ray for the GPUs the job needs, and for none on a CPU stack', async () => {
    expect(await submitted(2)).toMatchObject({ entrypoint_num_gpus: 2, submission_id: 'echoloop-j1' });
    expect(await submitted(0)).not.toHaveProperty('entrypoint_num_gpus');
  });
});
