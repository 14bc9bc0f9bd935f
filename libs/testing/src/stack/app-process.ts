import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

export interface AppProcess {
  url: string;
  logs: () => string;
  /** SIGTERM, then SIGKILL after 10 s: says which one ended it. */
  stop: () => Promise<'graceful' | 'killed'>;
  /** SIGKILL at once, as a crash would: nothing is flushed or committed. */
  kill: () => Promise<void>;
  /** Resolves with the exit code once the process ends, however it ends (null when a signal ended it). */
  exited: Promise<number | null>;
}

export interface AppExit {
  code: number | null;
  output: string;
}

/**
 * How an app is run: from source through @swc-node/register, or, when APPS_BUILD_DIR names a build of the apps
 * (`swc` with the repo's .swcrc, as the Docker image builds them; tools/test/run-all.sh makes one per run), from
 * that build, which starts with less CPU (no compiling in every process).
 */
function entryArgs(app: string): string[] {
  const build = process.env['APPS_BUILD_DIR'];
  return build
    ? [path.resolve(ROOT, build, 'apps', app, 'src', 'main.js')]
    : ['-r', '@swc-node/register', `apps/${app}/src/main.ts`];
}

function launch(app: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  // APP_NODE_ARGS passes extra node flags to the app (e.g. `--cpu-prof` when profiling a benchmark).
  const nodeArgs = process.env['APP_NODE_ARGS']?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, ...entryArgs(app)], {
    cwd: ROOT,
    env: {
      ...process.env,
      SWC_NODE_PROJECT: 'tsconfig.base.json',
      PORT: '0',
      LOG_LEVEL: 'info',
      // Every documented answer is checked against its schema in tests.
      RESPONSE_CONTRACTS: 'enforce',
      // Test gateways each have a database of their own: one group mirroring the dead letters into all of them
      // would scatter the letters. The suites about dead letters turn it on with a group of their own.
      ...(app === 'chat-gateway' && { DEAD_LETTERS_MIRROR: 'false' }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Starts an app from source as its own process and resolves once it listens (it logs its URL). */
export async function startApp(
  app: string,
  env: Record<string, string> = {},
  timeoutMs = 45_000,
): Promise<AppProcess> {
  const { child, output } = launch(app, env);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => settle(new Error(`${app} did not start within ${timeoutMs} ms:\n${output()}`)),
      timeoutMs,
    );
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output());
      if (match?.[1]) settle(match[1].replace('[::1]', '127.0.0.1'));
    }, 50);
    void exited.then((code) =>
      settle(new Error(`${app} exited with ${code} before listening:\n${output()}`)),
    );
    function settle(outcome: string | Error) {
      clearTimeout(timer);
      clearInterval(poll);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    }
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    url,
    logs: output,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return 'graceful';
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      return child.signalCode === 'SIGKILL' ? 'killed' : 'graceful';
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs an app that is expected to exit (e.g. on bad configuration) and returns its exit code and output. */
export async function runAppUntilExit(
  app: string,
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<AppExit> {
  const { child, output } = launch(app, env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  return { code, output: output() };
}
