import { pino } from 'pino';
import { loadLlamaEngine } from './llama-engine';
import { LoraAdapters } from './lora-adapters';
import { createModelServer } from './model-server';
import { readModelServerEnv } from './model-server-env';

async function main(): Promise<void> {
  const logger = pino({ base: { service: 'model-server' } });
  const config = readModelServerEnv(process.env);
  if (!config.ok) {
    for (const problem of config.problems) process.stderr.write(`model-server: ${problem}\n`);
    process.exit(1);
  }
  const { env } = config;
  process.env['NODE_LLAMA_CPP_SKIP_DOWNLOAD'] ??= 'true';

  const loadStartedAt = performance.now();
  const engine = await loadLlamaEngine({
    modelPath: env.MODEL_PATH,
    contextSize: env.MODEL_CONTEXT_SIZE,
    threads: env.MODEL_THREADS,
  });
  const adapters = new LoraAdapters({
    engine,
    maxLoras: env.MODEL_MAX_LORAS,
    ...(env.MODEL_LORA_STATE === undefined ? {} : { statePath: env.MODEL_LORA_STATE }),
    logger,
  });
  await adapters.restore();
  const server = createModelServer({
    engine,
    modelName: env.MODEL_NAME,
    modelRoot: env.MODEL_PATH,
    logger,
    adapters,
  });
  server.listen(env.MODEL_PORT, env.MODEL_HOST, () => {
    logger.info(
      {
        url: `http://${env.MODEL_HOST}:${env.MODEL_PORT}/v1`,
        model: env.MODEL_NAME,
        contextSize: engine.contextSize,
        threads: env.MODEL_THREADS,
        loraAdapters: adapters.list().map((adapter) => adapter.name),
        loadMs: Math.round(performance.now() - loadStartedAt),
      },
      'listening',
    );
  });

  const shutdown = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `model-server: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
