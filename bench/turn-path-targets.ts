// The servers a turn-path benchmark puts between the client and the model server: Echoloop's gateway (from any
// checkout), LiteLLM's proxy (python/requirements/bench-peers.txt, one worker) and Portkey's gateway (the
// @portkey-ai/gateway devDependency), each as its own process so its CPU and memory can be read from /proc.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { answersHttp, freePort, ROOT, startProcess, type BenchProcess } from './bench-env';

/** A proxy under test and the headers its OpenAI-compatible route needs. */
export interface Proxy extends BenchProcess {
  /** Base URL ending in /v1. */
  baseUrl: string;
  headers: Record<string, string>;
}

/**
 * Echoloop's chat gateway from the checkout at `root` (default this one), as in production (no contract checks);
 * `llmKeepAliveMs` sets LLM_KEEP_ALIVE_MS (its default when not given).
 */
export async function startEcholoopGateway(
  root: string,
  databaseUrl: string,
  modelUrl: string,
  workers = 1,
  llmKeepAliveMs?: number,
  /** Variables over the bench's own (another model's name, say). */
  env: Record<string, string> = {},
): Promise<BenchProcess> {
  return startProcess(
    'chat-gateway',
    process.execPath,
    // APP_NODE_ARGS passes node flags to the gateway, e.g. `--cpu-prof --cpu-prof-dir=DIR` for a profile.
    [
      ...(process.env['APP_NODE_ARGS']?.split(' ').filter(Boolean) ?? []),
      '-r',
      '@swc-node/register',
      'apps/chat-gateway/src/main.ts',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        SWC_NODE_PROJECT: 'tsconfig.base.json',
        PORT: '0',
        LOG_LEVEL: 'info',
        DATABASE_URL: databaseUrl,
        LLM_BASE_URL: modelUrl,
        LLM_MODEL: 'bench-model',
        RATE_LIMIT_PER_MINUTE: '100000',
        AUTH_ATTEMPTS_PER_MINUTE: '100000',
        DAILY_MESSAGE_QUOTA: '100000',
        DATABASE_POOL_SIZE: '40',
        // A full run outlasts the default 15 minutes; the SSE turns send the token on every request.
        JWT_TTL_SECONDS: '86400',
        GATEWAY_WORKERS: String(workers),
        ...(llmKeepAliveMs !== undefined && { LLM_KEEP_ALIVE_MS: String(llmKeepAliveMs) }),
        ...env,
      },
      ready: (output) => /listening on (http:\/\/[^\s"]+)/.exec(output)?.[1]?.replace('[::1]', '127.0.0.1'),
      timeoutMs: 90_000,
    },
  );
}

/** LiteLLM's proxy with one worker, routing `bench-model` to the model server. */
export async function startLiteLlm(modelUrl: string): Promise<Proxy> {
  const python = execFileSync('bash', [path.join(ROOT, 'tools/python/venv.sh'), 'bench-peers'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .toString()
    .trim();
  const masterKey = `sk-bench-${randomBytes(16).toString('hex')}`;
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-litellm-'));
  const config = path.join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'model_list:',
      '  - model_name: bench-model',
      '    litellm_params:',
      '      model: openai/bench-model',
      `      api_base: ${modelUrl}`,
      '      api_key: none',
      'litellm_settings:',
      '  telemetry: false',
      'general_settings:',
      // It refuses to start without one; a key compared in memory, no database.
      `  master_key: ${masterKey}`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proxy = await startProcess(
    'litellm',
    path.join(path.dirname(python), 'litellm'),
    ['--config', config, '--host', '127.0.0.1', '--port', String(port), '--num_workers', '1'],
    {
      cwd: dir,
      // No network here: use the bundled model cost map instead of fetching it.
      env: { ...process.env, LITELLM_LOCAL_MODEL_COST_MAP: 'True' },
      ready: answersHttp(url, '/health/liveliness'),
      timeoutMs: 120_000,
    },
  );
  return { ...proxy, baseUrl: `${url}/v1`, headers: { authorization: `Bearer ${masterKey}` } };
}

/** Portkey's open-source gateway (Node build), sending OpenAI-style calls to the model server as a custom host. */
export async function startPortkey(modelUrl: string): Promise<Proxy> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proxy = await startProcess(
    'portkey',
    process.execPath,
    [require.resolve('@portkey-ai/gateway/build/start-server.js'), `--port=${port}`, '--headless'],
    { cwd: ROOT, env: process.env, ready: answersHttp(url, '/'), timeoutMs: 60_000 },
  );
  return {
    ...proxy,
    baseUrl: `${url}/v1`,
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': modelUrl },
  };
}

/** The versions of what a run measured: the gateway's commit (and whether its checkout had changes), the peers, Node. */
export function targetVersions(gatewayRoot: string) {
  const read = (name: string) => {
    try {
      const file = path.join(ROOT, 'node_modules', name, 'package.json');
      return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    } catch {
      return null;
    }
  };
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', ['-C', gatewayRoot, ...args])
        .toString()
        .trim();
    } catch {
      return null;
    }
  };
  let litellm: string | null = null;
  try {
    const python = execFileSync('bash', [path.join(ROOT, 'tools/python/venv.sh'), 'bench-peers'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    litellm = execFileSync(python, ['-c', 'import importlib.metadata as m; print(m.version("litellm"))'])
      .toString()
      .trim();
  } catch {
    // Reported as skipped already.
  }
  return {
    echoloopCommit: git('rev-parse', '--short', 'HEAD'),
    /** Changed or untracked files in that checkout (a node_modules symlink in a worktree counts as one). */
    echoloopUncommittedFiles: git('status', '--porcelain')?.split('\n').filter(Boolean).length ?? null,
    litellm,
    portkeyGateway: read('@portkey-ai/gateway'),
    honoNodeServer: read('@hono/node-server'),
    node: process.version,
  };
}
