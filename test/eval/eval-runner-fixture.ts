import { dataSourceOptions } from '@echoloop/persistence';
import {
  createTestDatabase,
  startApp,
  startFakeVllm,
  type AppProcess,
  type FakeVllm,
  type ReplySource,
} from '@echoloop/testing';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';

export const SERVICE_KEY = 'elk_eval_test_key';

export interface EvalRunnerFixture {
  db: DataSource;
  vllm: FakeVllm;
  runner: AppProcess;
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
}): Promise<EvalRunnerFixture> {
  const database = await createTestDatabase(options.database);
  const db = await new DataSource(dataSourceOptions({ url: database.url })).initialize();
  await db.runMigrations();
  const vllm = await startFakeVllm({ model: options.model, reply: options.reply });
  await db.query(
    `INSERT INTO api_keys (name, key_hash, prefix, roles) VALUES ('eval', $1, 'elk_eval', '{}')`,
    [createHash('sha256').update(SERVICE_KEY).digest('hex')],
  );
  await options.before?.(db, vllm);
  const runner = await startApp('eval-runner', {
    DATABASE_URL: database.url,
    SIMULATOR_BASE_URL: vllm.url,
    SIMULATOR_MODEL: options.model,
    JUDGE_BASE_URL: vllm.url,
    JUDGE_MODEL: options.model,
  });
  return {
    db,
    vllm,
    runner,
    async call(method, path, body, key = SERVICE_KEY) {
      const res = await fetch(`${runner.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(key && { 'x-api-key': key }) },
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
