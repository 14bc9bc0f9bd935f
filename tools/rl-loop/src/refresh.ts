import { ServiceClient } from '@echoloop/platform';
import { waitFor } from '@echoloop/testing';
import { isRlJobEnded, type RlJobDetail as RlJob, type RlOrchestratorPaths } from '@echoloop/vocabulary';
import type { LoopConfig } from './config';
import { say, seconds } from './output';
import type { StageRunner } from './stages';

/** The orchestrator's API, typed by its OpenAPI document. */
type Orchestrator = ServiceClient<RlOrchestratorPaths>;

/** The gate's checks, one line each: candidate vs default, the paired difference and its interval. */
export function gateLines(gate: NonNullable<RlJob['gate']>): string[] {
  return (gate.checks ?? []).map((c) =>
    c.interval
      ? `${c.name} (${c.items} items): candidate ${fmt(c.candidate)} vs default ${fmt(c.default)}, Δ ${fmt(c.delta)} [${fmt(c.interval[0])}, ${fmt(c.interval[1])}] ${c.status}`
      : `${c.name}: ${c.status}`,
  );
}

export const fmt = (n: number | null | undefined, digits = 4): string =>
  n === null || n === undefined ? '-' : n.toFixed(digits);

/**
 * The refresh: the threshold's job (or one started by hand when the threshold was not reached), newer than the
 * `previous` generation's, followed from status to status, its training curve as it grows, until it ends. Throws
 * with the reason and the logs' tail unless it succeeded, shipped nothing honestly, or the gate refused it.
 */
export async function followRefresh(
  config: LoopConfig,
  orchestrator: string,
  key: string,
  stages: StageRunner,
  generation: { index: number; previousJob: string | undefined },
): Promise<RlJob> {
  const rl: Orchestrator = new ServiceClient('rl-orchestrator', {
    baseUrl: orchestrator,
    apiKey: key,
    timeoutMs: 60_000,
  });
  const latest = async () => (await rl.call('get', '/v1/rl/jobs', { query: { limit: 1 } })).items[0];

  // Give the threshold poller two rounds to see the last labels.
  const triggered = await waitFor(
    async () => {
      const job = await latest();
      return job?.id !== generation.previousJob && job;
    },
    {
      timeoutMs: (config.thresholdPollSeconds * 2 + 3) * 1_000,
      intervalMs: 500,
    },
  ).catch(() => undefined);
  let id = triggered?.id;
  if (!id) {
    const { newData, thresholds } = await rl.call('get', '/v1/rl/triggers');
    say(
      'refresh',
      `threshold NOT reached: ${newData.pairs} new preference pairs < ${thresholds.pairs}; triggering by hand`,
    );
    const job = await rl.call('post', '/v1/rl/jobs', {
      body: {
        note: `rl-loop generation ${generation.index}: threshold not reached (${newData.pairs} pairs)`,
        hyperparameters: { maxSteps: config.steps, seed: generation.index },
      },
    });
    id = job.id;
    say('refresh', `started by hand: job ${id}`);
  }
  const { decisions } = await rl.call('get', '/v1/rl/triggers');
  const decision = decisions.find((d) => d.jobId === id && d.decision === 'started');
  say('refresh', `trigger: ${decision?.trigger ?? '?'} (${decision?.reason ?? 'no decision recorded'})`);

  const startedAt = Date.now();
  const job = await followJob(rl, id, stages);
  say('refresh', `ended ${job.status} after ${seconds(Date.now() - startedAt)} s of following`);
  if (job.gate) printGate(job.gate);
  if (shippedNothingHonestly(job)) {
    say('refresh', `nothing shipped, a correct outcome: ${job.reason}`);
    return job;
  }
  if ((job.reason ?? '').startsWith('gate_failed')) {
    say('refresh', `the gate refused the candidate: it is retired, the default stays`);
    return job;
  }
  if (job.status !== 'succeeded') {
    say('refresh', `reason: ${job.reason ?? 'none given'}`);
    say('refresh', `logs tail:\n${job.logsTail ?? '(none)'}`);
    throw new Error(`the refresh ${job.status}: ${job.reason ?? 'no reason'}`);
  }
  say('refresh', `candidate ${job.checkpointId} serving as ${job.output?.serving?.adapterName ?? '?'}`);
  say('refresh', `experiment ${job.experimentId}`);
  return job;
}

/** Follows one job from status to status, its training curve as it grows, until it ends; returns it as it ended. */
export async function followJob(rl: Orchestrator, id: string, stages: StageRunner): Promise<RlJob> {
  let status = '';
  let shown = 0;
  const job = await waitFor(
    async () => {
      const current: RlJob = await rl.call('get', '/v1/rl/jobs/{id}', { path: { id } });
      if (current.status !== status) {
        status = current.status;
        const since = seconds(Date.now() - Date.parse(current.createdAt));
        say('refresh', `${status} (at +${since} s since the job was created)`);
        stages.phase(isRlJobEnded(status) ? undefined : `refresh:${status}`);
        if (status === 'training' || status === 'loading') printDataset(current);
      }
      const curve = current.metrics?.curve ?? [];
      for (; shown < curve.length; shown += 1) {
        const p = curve[shown];
        if (p)
          say(
            'refresh',
            `  step ${p.step}/${p.of}  loss ${fmt(p.loss)}  reward acc ${fmt(p.rewardAccuracy, 2)}`,
          );
      }
      return isRlJobEnded(current.status) && current;
    },
    { timeoutMs: 3_600_000, intervalMs: 1_000, what: `RL job ${id} to end` },
  );
  return job;
}

/** Too little data, or training that learnt nothing holding on other users: it says so and ships nothing. */
export const shippedNothingHonestly = (job: RlJob): boolean => job.status === 'skipped';

const datasetShown = new Set<string>();
function printDataset(job: RlJob): void {
  if (datasetShown.has(job.id) || !job.dataset) return;
  datasetShown.add(job.id);
  const { train, validation, heldout, export: all, id } = job.dataset;
  say(
    'refresh',
    `snapshot ${id}: ${all?.rows ?? 0} pairs, ${train?.rows ?? 0} train / ${validation?.rows ?? 0} validation / ${heldout?.rows ?? 0} held out`,
  );
}

function printGate(gate: NonNullable<RlJob['gate']>): void {
  for (const line of gateLines(gate)) say('refresh', `gate ${line}`);
  say(
    'refresh',
    `gate ${gate.passed ? 'PASSED' : 'FAILED'}${gate.better ? ' (significantly better)' : ''}${gate.reasons?.length ? `: ${gate.reasons.join('; ')}` : ''}`,
  );
}
