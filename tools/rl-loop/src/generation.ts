import type { SentientProfile } from '@echoloop/sentient';
import { progressReporter } from '@echoloop/platform';
import type { LoopConfig } from './config';
import type { LoopDatabase } from './database';
import { type ExperimentOutcome, runExperiment } from './experiment';
import { gateway } from './clients';
import {
  benchmarkProfileIds,
  evaluateIndependently,
  type IndependentEvaluation,
} from './independent-evaluation';
import { waitLabelled } from './labelling';
import { say } from './output';
import { followRefresh } from './refresh';
import type { RlJobDetail as RlJob } from '@echoloop/vocabulary';
import { type Endpoints, pool, simulateUser, type UserOutcome } from './simulated-users';
import type { StageRunner } from './stages';

/** One refresh of the loop: its users, its data, its job, its experiment and the independent evaluation. */
export interface Generation {
  index: number;
  /** The default checkpoint when the generation started: the refresh's parent, and the evaluation's baseline. */
  parent: string;
  users: UserOutcome[];
  job: RlJob;
  evaluation: IndependentEvaluation | null;
  experiment: ExperimentOutcome | null;
  /** The default checkpoint when the generation ended. */
  defaultAfter: string;
}

export interface GenerationContext {
  config: LoopConfig;
  data: LoopDatabase;
  endpoints: Endpoints;
  orchestrator: string;
  profiles: SentientProfile[];
  stages: StageRunner;
}

/** The registry's default checkpoint: its id, and the name the engine serves it under. */
export async function defaultCheckpoint(e: Endpoints): Promise<{ id: string; modelName: string }> {
  const { items } = await gateway(e.gateway, { apiKey: e.apiKey }).call('get', '/v1/checkpoints');
  const found = items.find((c) => c.isDefault);
  if (!found) throw new Error('the registry has no default checkpoint');
  return found;
}

/** `n` profiles of the training pool, starting where the last draw ended, so generations rotate through them. */
function draw(profiles: SentientProfile[], n: number, offset: number): SentientProfile[] {
  return Array.from({ length: n }, (_, i) => profiles[(offset + i) % profiles.length] as SentientProfile);
}

/** Users chat with the default, their turns are labelled, a refresh runs, and its candidate is evaluated and tried. */
export async function runGeneration(
  ctx: GenerationContext,
  index: number,
  history: { previousJob: string | undefined; drawn: number },
): Promise<Generation> {
  const { config, data, endpoints: e, stages } = ctx;
  const stage = (name: string) => `g${index} ${name}`;
  const parent = (await defaultCheckpoint(e)).id;
  say(stage('users'), `default checkpoint ${parent}`);

  const users = await stages.run(stage('users'), async () => {
    const progress = progressReporter(stage('users'), 'users');
    let done = 0;
    const outcomes = await pool(
      draw(ctx.profiles, config.users, history.drawn),
      config.concurrency,
      async (profile) => {
        const outcome = await simulateUser(e, profile, config.turns);
        say(
          stage('users'),
          `${++done}/${config.users} ${profile.id}: first reply scores ${outcome.scores.map((x) => x ?? 'unjudged').join(' vs ')} -> ${outcome.kept === null ? 'tie' : `kept ${outcome.kept === 0 ? 'A' : 'B'}`}; ${outcome.turns} turns, emotion ${outcome.trajectory.join(' -> ')} (${outcome.endReason})`,
        );
        progress.report(done, config.users);
        return outcome;
      },
    );
    progress.finish();
    return outcomes;
  });
  await stages.run(stage('labelling'), () => waitLabelled(data.db, users));

  const job = await stages.run(stage('refresh'), () =>
    followRefresh(config, ctx.orchestrator, data.apiKey, stages, { index, previousJob: history.previousJob }),
  );
  const candidate = job.status === 'succeeded' ? job.checkpointId : null;
  // Before the experiment: a candidate it stops is unloaded, and could no longer be played.
  const evaluation = candidate
    ? await stages.run(stage('evaluation'), () =>
        evaluateIndependently(
          { evalRunner: e.evalRunner },
          data.apiKey,
          data.db,
          { parent, candidate },
          benchmarkProfileIds(config.evalProfiles),
          config.evalTurns,
        ),
      )
    : null;
  const experiment = job.experimentId
    ? await stages.run(stage('experiment'), () =>
        runExperiment(
          e,
          job.experimentId as string,
          draw(ctx.profiles, config.routingUsers, history.drawn + config.users),
          {
            maxTurns: config.turns,
            concurrency: config.concurrency,
            reviewMs: 2_000,
          },
        ),
      )
    : null;
  return { index, parent, users, job, evaluation, experiment, defaultAfter: (await defaultCheckpoint(e)).id };
}
