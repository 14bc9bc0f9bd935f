import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/**
 * The trl-dpo template's input checks and output helpers in Python (standard library only, no torch): a bad
 * snapshot exits 2 with one line before anything heavy loads. The training itself runs in refresh-loop.int-spec.ts.
 */
describe('trl-dpo template: input validation and manifests (python unittest)', () => {
  it('passes', async () => {
    const result = await run(
      'python3',
      ['-m', 'unittest', 'discover', '-s', 'python/tests', '-p', 'test_echoloop_train*.py', '-v'],
      { cwd: ROOT, env: { ...process.env, PYTHONPATH: 'python' } },
    ).catch((error: { stdout: string; stderr: string }) => error);
    expect(result.stderr).toMatch(/Ran \d+ tests[\s\S]*\nOK\s*$/);
    expect(result.stderr).not.toMatch(/skipped/);
  }, 60_000);
});
