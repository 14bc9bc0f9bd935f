import { dataSourceOptions } from '@echoloop/persistence';
import {
  createTestDatabase,
  startApp,
  startFakeVllm,
  type AppProcess,
  type FakeVllm,
  type ReplySource,
} from '@echoloop/testing';
import { DataSource } from 'typeorm';
import { insertApiKey } from '../api-keys/insert-api-key';

export interface EvalRunnerFixture {
  db: DataSource;
  vllm: FakeVllm;
  runner: AppProcess;
  /** An experimenter's API key scoped to the eval-runner, used by `call` unless told otherwise. */
  key: string;
  /** A request with the service key (or the given one; null for none); `body` is parsed when it is JSON. */
  call(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<{ status: number; text: string; body: any }>;
  stop(): Promise<void>;
}

/**
 * The eval-runner on a fresh migrated database, with a service API key, and the vLLM-compatible test server as its
 * simulator and judge model (served as `model`). `before` runs after migrations, before the runner starts.
 */
export async function startEvalRunner(options: {
  database: string;
  model: string;
  reply: ReplySource;
  before?: (db: DataSource, vllm: FakeVllm) => Promise<void>;
  env?: Record<string, string>;
}): Promise<EvalRunnerFixture> {
  const database = await createTestDatabase(options.database);
  const db = await new DataSource(dataSourceOptions({ url: database.url })).initialize();
  await db.runMigrations();
  const vllm = await startFakeVllm({ model: options.model, reply: options.reply });
  const { key } = await insertApiKey(db, {
    name: 'eval',
    roles: ['experimenter'],
    services: ['eval-runner'],
  });
  await options.before?.(db, vllm);
  const runner = await startApp('eval-runner', {
    DATABASE_URL: database.url,
    SIMULATOR_BASE_URL: vllm.url,
    SIMULATOR_MODEL: options.model,
    JUDGE_BASE_URL: vllm.url,
    JUDGE_MODEL: options.model,
    // The policy's checkpoints live on the test server, as they would on the served models' host.
    LLM_BASE_URL: vllm.url,
    ...options.env,
  });
  return {
    db,
    vllm,
    runner,
    key,
    async call(method, path, body, callKey = key) {
      const res = await fetch(`${runner.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(callKey && { 'x-api-key': callKey }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, body: text.startsWith('{') ? JSON.parse(text) : undefined };
    },
    async stop() {
      await runner.stop();
      await vllm.close();
      await db.destroy();
      await database.drop();
    },
  };
}
