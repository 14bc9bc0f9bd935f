import { type AppProcess, startApp, uniqueName } from '@echoloop/testing';
import path from 'node:path';
import type { LoopConfig } from './config';
import { LEXICON_MODEL, startLexiconJudges } from './lexicon-judges';
import type { LoopDatabase } from './database';
import { ROOT, say } from './output';
import type { Stack } from './stack';

export interface Services {
  labeller: AppProcess;
  gateway: AppProcess;
  evalRunner: AppProcess;
  orchestrator: AppProcess;
}

/** Every app this loop started, so that an exit at any point stops them. */
const started: AppProcess[] = [];
const stoppers: (() => Promise<void>)[] = [];

async function start(name: string, env: Record<string, string>): Promise<AppProcess> {
  const app = await startApp(name, { KAFKA_CLIENT_ID: uniqueName(`loop-${name}`), ...env }, 120_000);
  started.push(app);
  say('services', `${name} listening on ${app.url}`);
  return app;
}

export async function stopServices(): Promise<void> {
  await Promise.allSettled(started.splice(0).map((app) => app.stop()));
  await Promise.allSettled(stoppers.splice(0).map((stop) => stop()));
}

/** The four apps on the loop's database and the stack's vLLM engine, as child processes on free ports. */
export async function startServices(config: LoopConfig, data: LoopDatabase, stack: Stack): Promise<Services> {
  const base = { DATABASE_URL: data.url };
  const judges =
    config.judges === 'lexicon'
      ? await startLexiconJudges().then((server) => {
          stoppers.push(() => server.close());
          say('services', `lexicon judges and simulated-user model on ${server.url}`);
          return { url: server.url, model: LEXICON_MODEL };
        })
      : { url: config.modelUrl, model: config.baseModel };
  // A fresh labeller group, so it labels this run's turns (older events name turns of other databases: skipped).
  const labeller = await start('reward-labeller', {
    ...base,
    LABELLER_GROUP_ID: uniqueName('rl-loop'),
    JUDGE_BASE_URL: judges.url,
    JUDGE_MODEL: judges.model,
    JUDGE_MAX_TOKENS: '160',
    JUDGE_TIMEOUT_MS: '120000',
    // Simulated users say one thing and leave: their turns finish on leaving, not after the default 30 min.
    LEAVE_AFTER_MS: '5000',
    LEAVE_SWEEP_MS: '1000',
  });
  const gateway = await start('chat-gateway', {
    ...base,
    LLM_BASE_URL: config.modelUrl,
    LLM_MODEL: config.baseModel,
    LLM_MAX_TOKENS: '48',
    LLM_FIRST_TOKEN_TIMEOUT_MS: '120000',
    LLM_IDLE_TIMEOUT_MS: '60000',
    AUTH_ATTEMPTS_PER_MINUTE: '10000',
  });
  const evalRunner = await start('eval-runner', {
    ...base,
    SIMULATOR_BASE_URL: judges.url,
    SIMULATOR_MODEL: judges.model,
    JUDGE_BASE_URL: judges.url,
    JUDGE_MODEL: judges.model,
    LLM_BASE_URL: config.modelUrl,
    EVAL_MAX_TOKENS: '48',
  });
  const orchestrator = await start('rl-orchestrator', {
    ...base,
    SERVICE_API_KEY: data.apiKey,
    GATEWAY_URL: gateway.url,
    EVAL_RUNNER_URL: evalRunner.url,
    LABELLER_URL: labeller.url,
    LLM_BASE_URL: config.modelUrl,
    RL_RUNNER: 'ray',
    RAY_DASHBOARD_URL: config.rayUrl,
    RL_PYTHON: stack.python,
    RL_PYTHON_PATH: path.join(ROOT, 'python'),
    RL_BASE_GGUF: stack.baseGguf,
    RL_WORK_DIR: config.workDir,
    RL_THRESHOLD_PAIRS: String(config.thresholdPairs),
    RL_THRESHOLD_POLL_SECONDS: String(config.thresholdPollSeconds),
    RL_MIN_PAIRS: String(config.minPairs),
    // The job shares this machine with the engine, the apps and the simulated users.
    RL_TRAIN_THREADS: '1',
    RL_MIN_VALIDATION_PAIRS: String(config.minValidationPairs),
    RL_MAX_STEPS: String(config.steps),
    RL_JOB_POLL_SECONDS: '1',
    // A CPU plays few profiles: intervals this narrow-sampled bound only large losses (the report shows them).
    GATE_PROFILES: '2',
    GATE_HELDOUT_ITEMS: '8',
    GATE_MIN_ITEMS: '2',
    EXPERIMENT_TRAFFIC_PERCENT: '50',
    // Every simulated user consents explicitly: the snapshot holds only those who did.
    TRAINING_CONSENT_DEFAULT: 'false',
  });
  return { labeller, gateway, evalRunner, orchestrator };
}
