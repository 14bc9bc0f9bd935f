import { parseProfilesJsonl } from '@echoloop/sentient';
import { type AppProcess, startApp, uniqueName, waitFor } from '@echoloop/testing';
import { readFileSync } from 'node:fs';
import { insertApiKey } from '../api-keys/insert-api-key';
import { type EvalRunnerFixture, startEvalRunner } from '../eval/eval-runner-fixture';

const { profiles } = parseProfilesJsonl(readFileSync('data/sentient/profiles.jsonl', 'utf8'));
export const BENCHMARK = profiles.filter((p) => p.pool === 'benchmark').slice(0, 2);

/**
 * The real eval-runner (a scripted simulator: each simulated user answers once, feels better or worse by
 * checkpoint, and leaves) and the real RL orchestrator (API only: no job is driven) on one database, with the
 * gateway's service keys for each. `gatewayEnv` wires a gateway to them.
 */
export interface StaffServices {
  evals: EvalRunnerFixture;
  orchestrator: AppProcess;
  gatewayEnv: Record<string, string>;
  /** Runs an evaluation of the checkpoint on the two benchmark profiles to its end (each simulated user's
   * emotion moves by `change`); returns its id. */
  evaluate(checkpointId: string, change: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startStaffServices(name: string): Promise<StaffServices> {
  let change = 0;
  const evals = await startEvalRunner({
    database: name,
    model: 'candidate',
    reply: (request) => {
      const schema = (request.response_format as { json_schema?: { name: string } } | undefined)?.json_schema
        ?.name;
      if (schema === 'sentient_analysis') {
        return JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
      }
      if (schema === 'sentient_user_turn') {
        return JSON.stringify({ thinking: 't', draft: 'd', response: 'thanks, bye', goodbye: true });
      }
      return 'Glad you told me. I am here.';
    },
    before: (db, vllm) =>
      db.query(
        `INSERT INTO checkpoints (id, model_name, endpoints, context_tokens, status)
         VALUES ('candidate-1', 'candidate', $1, 4096, 'active'), ('base-1', 'candidate', $1, 4096, 'active')`,
        [JSON.stringify([{ baseUrl: vllm.url }])],
      ),
  });
  const orchestratorKey = await insertApiKey(evals.db, {
    name: 'gateway to rl-orchestrator',
    roles: ['experimenter'],
    services: ['rl-orchestrator'],
  });
  const evalKey = await insertApiKey(evals.db, {
    name: 'gateway to eval-runner',
    roles: ['experimenter'],
    services: ['eval-runner'],
  });
  const orchestrator = await startApp('rl-orchestrator', {
    DATABASE_URL: (evals.db.options as { url?: string }).url ?? '',
    RL_DRIVE_JOBS: 'false',
    KAFKA_CLIENT_ID: uniqueName('rl'),
  });
  return {
    evals,
    orchestrator,
    gatewayEnv: {
      RL_ORCHESTRATOR_URL: orchestrator.url,
      RL_ORCHESTRATOR_API_KEY: orchestratorKey.key,
      EVAL_RUNNER_URL: evals.runner.url,
      EVAL_RUNNER_API_KEY: evalKey.key,
    },
    async evaluate(checkpointId, moved) {
      change = moved;
      const created = await evals.call('POST', '/v1/evaluations', {
        checkpointId,
        profiles: BENCHMARK.map((p) => p.id),
      });
      if (created.status !== 202) throw new Error(`evaluation: ${created.status} ${created.text}`);
      const id = created.body.id as string;
      await waitFor(
        async () => (await evals.call('GET', `/v1/evaluations/${id}`)).body?.status === 'finished',
        {
          timeoutMs: 60_000,
          what: `evaluation ${id} to finish`,
        },
      );
      return id;
    },
    async stop() {
      await orchestrator.stop();
      await evals.stop();
    },
  };
}
