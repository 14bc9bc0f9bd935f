import { type AppProcess, startApp, uniqueName } from '@echoloop/testing';
import path from 'node:path';
import type { LoopConfig } from './config';
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

async function start(name: string, env: Record<string, string>): Promise<AppProcess> {
  const app = await startApp(name, { KAFKA_CLIENT_ID: uniqueName(`loop-${name}`), ...env }, 120_000);
  started.push(app);
  say('services', `${name} listening on ${app.url}`);
  return app;
}

export async function stopServices(): Promise<void> {
  await Promise.allSettled(started.splice(0).map((app) => app.stop()));
}

/** The four apps on the stack's database and vLLM engine, as child processes on free ports. */
export async function startServices(config: LoopConfig, data: LoopDatabase, stack: Stack): Promise<Services> {
  const base = { DATABASE_URL: data.url };
  // The simulated users and the reward judges are the stack's engine itself: a 135M model plays them badly, and the
  // loop's independent evaluation (independent-evaluation.ts) is what says whether anything was learnt.
  const judges = { url: config.modelUrl, model: config.baseModel };
  // `up`'s labeller's own consumer group (its app is stopped meanwhile): each turn is labelled once, and `up`'s
  // labeller goes on after the loop from where the loop's left.
  const labeller = await start('reward-labeller', {
    ...base,
    JUDGE_BASE_URL: judges.url,
    JUDGE_MODEL: judges.model,
    JUDGE_MAX_TOKENS: '160',
    JUDGE_TIMEOUT_MS: '120000',
    // Unconstrained, the 135M judges rarely write a verdict line: in one 3-generation run every humanlike label and
    // 49 of 133 empathy labels failed, so the gate's held-out reward measured no item on either side and could not
    // run. vLLM's structured outputs make every answer one rationale line and a verdict. Nobody else uses the
    // engine meanwhile (`up`'s apps are paused), so its one-time grammar compile costs no one's reply.
    JUDGE_CONSTRAIN_ANSWERS: 'true',
    // A simulated user answers within a simulator call or two (20-60 s here) and leaves when the simulator ends its
    // conversation: its turns finish 90 s after its last message, not after the default 30 min.
    LEAVE_AFTER_MS: '90000',
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
    // The experiment is reviewed every 2 s and may decide from 3 users an arm (its always-valid test still has to
    // be conclusive, which a handful of users rarely make it).
    EXPERIMENT_GUARDRAIL_CHECK_MS: '2000',
    EXPERIMENT_DECISION_MIN_USERS: '3',
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
    // The sentient check plays 10-turn conversations, minutes each on this CPU: off unless --gate-profiles asks
    // (GATE_PROFILES=0 turns it off by configuration, and the gate's report says so).
    GATE_PROFILES: String(config.gateProfiles),
    GATE_HELDOUT_ITEMS: '8',
    GATE_MIN_ITEMS: '2',
    EXPERIMENT_TRAFFIC_PERCENT: '50',
    // Every simulated user consents explicitly: the snapshot holds only those who did.
    TRAINING_CONSENT_DEFAULT: 'false',
    // The loop's refreshes count and train on its simulated users alone, never on people's turns.
    RL_POPULATION: 'simulated',
  });
  return { labeller, gateway, evalRunner, orchestrator };
}
