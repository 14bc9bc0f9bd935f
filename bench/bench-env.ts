// What the turn-path benchmarks set up around the code under test: a migrated and seeded throwaway database, the
// paced model server, processes started and stopped by pid, and the printed table.
import { createTestDatabase, writeResultFile } from '@echoloop/testing';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

export const ROOT = path.resolve(__dirname, '..');

export const log = (line: string): void => void process.stderr.write(`${line}\n`);

/**
 * Writes a benchmark's latest result where it is committed (`bench/results/<file>`, or an absolute path), with the
 * command, date, machine and the table it printed (writeResultFile; docs/benchmarks.md shows that table). Returns
 * the path written.
 */
export function writeBenchResult(file: string, result: object, table: string): string {
  const out = path.isAbsolute(file) ? file : path.join(ROOT, 'bench/results', file);
  writeResultFile(out, ROOT, { ...result, table: table.trim() });
  return out;
}

export interface BenchDatabase {
  url: string;
  characterId: string;
  drop(): Promise<void>;
}

/** A throwaway database on the local stack, migrated and seeded by the checkout at `root`. */
export async function prepareDatabase(root = ROOT): Promise<BenchDatabase> {
  const db = await createTestDatabase('bench');
  const env = { ...process.env, DATABASE_URL: db.url, SWC_NODE_PROJECT: 'tsconfig.base.json' };
  execFileSync(process.execPath, ['tools/typeorm-cli.cjs', 'migration:run'], {
    cwd: root,
    env,
    stdio: 'ignore',
  });
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'tools/seed/src/main.ts'], {
    cwd: root,
    env,
    stdio: 'ignore',
  });
  const characterId = execFileSync('psql', [db.url, '-Atc', 'SELECT id FROM characters LIMIT 1'])
    .toString()
    .trim();
  return { url: db.url, characterId, drop: () => db.drop() };
}

export interface ModelServer {
  url: string;
  pid: number;
  /** Changes the wait before each reply's first token, for the replies started after it resolves. */
  setFirstTokenDelay(ms: number): Promise<void>;
  stop(): void;
}

/**
 * bench/fake-vllm-server.ts as its own process, paced at `rate` tokens/s, `tokens` tokens a reply, keeping idle
 * connections `keepAliveTimeoutMs` (left out: the test server's default, vLLM's 5 s).
 */
export async function startModel(
  rate: number,
  tokens: number,
  firstTokenDelayMs = 0,
  keepAliveTimeoutMs?: number,
): Promise<ModelServer> {
  const child = spawn(
    process.execPath,
    [
      '-r',
      '@swc-node/register',
      'bench/fake-vllm-server.ts',
      String(rate),
      String(tokens),
      String(firstTokenDelayMs),
      ...(keepAliveTimeoutMs === undefined ? [] : [String(keepAliveTimeoutMs)]),
    ],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => String((await lines.next()).value ?? '');
  const url = await next();
  return {
    url,
    pid: child.pid!,
    setFirstTokenDelay: async (ms) => {
      child.stdin!.write(`${JSON.stringify({ delayBeforeFirstTokenMs: ms })}\n`);
      await next();
    },
    stop: () => child.kill('SIGTERM'),
  };
}

/** A port free right now on 127.0.0.1, for a server that must be told its port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface BenchProcess {
  pid: number;
  url: string;
  /** The end of what it printed, for a failure's message. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a server process and resolves once `ready(output)` gives its URL; fails with its output if it exits
 * first or takes longer than `timeoutMs`. Keeps only the end of its output (a busy server logs a lot).
 */
export async function startProcess(
  name: string,
  command: string,
  args: string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    ready: (output: string) => Promise<string | undefined> | string | undefined;
    timeoutMs?: number;
  },
): Promise<BenchProcess> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (exitedEarly) throw new Error(`${name} exited before it was ready:\n${output.slice(-3_000)}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `${name} was not ready within ${options.timeoutMs ?? 60_000} ms:\n${output.slice(-3_000)}`,
      );
    }
    const url = await options.ready(output);
    if (url) return { pid: child.pid!, url, output: () => output, stop };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Resolves to `url` once an HTTP GET of `url + probe` answers at all. */
export const answersHttp = (url: string, probe: string) => async (): Promise<string | undefined> => {
  try {
    await fetch(`${url}${probe}`, { signal: AbortSignal.timeout(1_000) });
    return url;
  } catch {
    return undefined;
  }
};

/** A plain-text table with ` | ` between columns. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  return `${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${rows.map(line).join('\n')}\n`;
}
