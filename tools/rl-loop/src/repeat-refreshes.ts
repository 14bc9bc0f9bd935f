import { call } from './http';
import type { LoopConfig } from './config';
import { say, seconds } from './output';
import { followJob, shippedNothingHonestly } from './refresh';
import type { RlJob } from './rl-job';
import type { StageRunner } from './stages';

export interface RepeatedRefreshes {
  jobs: { id: string; status: string; reason: string | null; checkpointId: string | null; seconds: number }[];
  /** The engine's adapters of this run's checkpoints, and the ones the registry wants served. */
  engine: { served: string[]; wanted: string[]; matches: boolean };
}

/**
 * More refreshes after the first, in a row, as a product team would run them: the running experiment is stopped
 * (its candidate no longer wanted), a refresh is started by hand and followed to its end. Each must end `succeeded`
 * or `failed` with `gate_failed`; afterwards the engine must serve exactly the adapters still wanted.
 */
export async function repeatRefreshes(
  config: LoopConfig,
  urls: { orchestrator: string; gateway: string },
  key: string,
  stages: StageRunner,
): Promise<RepeatedRefreshes> {
  const as =
    <T>(base: string) =>
    (method: string, route: string, body?: unknown) =>
      call<T>(base, method, route, { key, ...(body !== undefined && { body }) });
  const rl = <T>(method: string, route: string, body?: unknown) =>
    as<T>(urls.orchestrator)(method, route, body);
  const gw = <T>(method: string, route: string, body?: unknown) => as<T>(urls.gateway)(method, route, body);
  const jobs: RepeatedRefreshes['jobs'] = [];
  for (let i = 2; i <= config.refreshes; i += 1) {
    const running = (
      await gw<{ items: { id: string; status: string }[] }>('GET', '/v1/experiments')
    ).items.filter((e) => e.status === 'running');
    for (const experiment of running) {
      await gw('POST', `/v1/experiments/${experiment.id}/stop`, {
        reason: `rl-loop: refresh ${i} of ${config.refreshes}`,
      });
    }
    const started = Date.now();
    const { id } = await rl<RlJob>('POST', '/v1/rl/jobs', {
      note: `rl-loop: refresh ${i} of ${config.refreshes}`,
      hyperparameters: { maxSteps: config.steps, seed: i },
    });
    say('refreshes', `refresh ${i}/${config.refreshes}: job ${id}`);
    const job = await followJob(rl, id, stages);
    const ok =
      job.status === 'succeeded' ||
      (job.reason ?? '').startsWith('gate_failed') ||
      shippedNothingHonestly(job);
    say(
      'refreshes',
      `refresh ${i}/${config.refreshes}: ${job.status}${job.reason ? ` (${job.reason})` : ''}${ok ? '' : ' <- NOT OK'}`,
    );
    jobs.push({
      id,
      status: job.status,
      reason: job.reason,
      checkpointId: job.checkpointId,
      seconds: seconds(Date.now() - started),
    });
  }
  // The reconciler acts on the stop at once; give its pass a moment before comparing.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const checkpoints = (
    await gw<{ items: { id: string; adapterPath: string | null; servedOn: { state: string }[] }[] }>(
      'GET',
      '/v1/checkpoints',
    )
  ).items;
  const ours = new Set(checkpoints.filter((c) => c.adapterPath).map((c) => c.id));
  const wanted = checkpoints
    .filter((c) => c.servedOn.length > 0)
    .map((c) => c.id)
    .sort();
  const models = await call<{ data: { id: string; parent: string | null }[] }>(
    config.modelUrl,
    'GET',
    '/models',
  );
  const served = models.data
    .filter((m) => m.parent !== null && ours.has(m.id))
    .map((m) => m.id)
    .sort();
  const matches = JSON.stringify(served) === JSON.stringify(wanted);
  say(
    'refreshes',
    `engine serves ${served.length} of this run's adapters, ${wanted.length} wanted: ${matches ? 'as wanted' : 'NOT as wanted'}`,
  );
  return { jobs, engine: { served, wanted, matches } };
}
