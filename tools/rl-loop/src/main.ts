// The whole local RL loop for real, stage by stage with progress, ending with a short report:
//   ./echoloop loop [--users 20] [--steps 24] [--routing-users 6] [--concurrency 2] [--threshold-pairs 12]
//                   [--min-pairs 6] [--refreshes 1] [--out reports/rl-loop-<time>.json]
// stack -> fresh database -> services -> simulated users (swipes) -> labelling -> refresh (trigger, training,
// serving, gate, experiment) -> routing -> report (also written as JSON, with each stage's wall time and peak RSS).
import { adapterNamesOf } from '@echoloop/testing';
import { progressReporter } from '@echoloop/platform';
import { loopConfig } from './config';
import { freshDatabase } from './database';
import { call } from './http';
import { waitLabelled } from './labelling';
import { errorText, say } from './output';
import { trainProfiles } from './profiles';
import { followRefresh } from './refresh';
import { greedy, type LoopReport, PROMPT, printReport, summarizeJob, writeReport } from './report';
import { repeatRefreshes } from './repeat-refreshes';
import { routeUsers } from './routing';
import { startServices, stopServices } from './services';
import { type Endpoints, pool, simulateUser } from './simulated-users';
import { ensureStack } from './stack';
import { StageRunner } from './stages';

async function main(): Promise<void> {
  const config = loopConfig(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const stages = new StageRunner(config.workDir);
  const partial = () => ({
    runId: config.runId,
    startedAt,
    stages: stages.stages,
    refreshPhases: stages.phases,
  });
  process.once('SIGINT', () => {
    say('loop', `interrupted: stopping the services it started; partial report in ${config.reportPath}`);
    writeReport({ ...partial(), error: 'interrupted' }, config.reportPath);
    void stopServices().finally(() => process.exit(130));
  });
  try {
    const stack = await stages.run('stack', () => ensureStack(config.baseGguf));
    const data = await stages.run('database', freshDatabase);
    const services = await stages.run('services', () => startServices(config, data, stack));
    const e: Endpoints = {
      gateway: services.gateway.url,
      evalRunner: services.evalRunner.url,
      apiKey: data.apiKey,
      characterId: data.characterId,
    };
    const profiles = trainProfiles();

    const outcomes = await stages.run('users', async () => {
      say(
        'users',
        `${config.users} simulated users from ${profiles.length} training-pool profiles, ${config.concurrency} at a time`,
      );
      const progress = progressReporter('users', 'users');
      let kept = 0;
      let done = 0;
      const all = await pool(
        Array.from({ length: config.users }, (_, i) => profiles[i % profiles.length] ?? profiles[0]),
        config.concurrency,
        async (profile) => {
          if (!profile) throw new Error('no profile');
          say(
            'users',
            `${profile.id} (${profile.persona.name}) starts: opener, two replies, each played to the simulator`,
          );
          const outcome = await simulateUser(e, profile);
          if (outcome.kept !== null) kept += 1;
          say(
            'users',
            `${++done}/${config.users} ${profile.id}: scores ${outcome.scores.join(' vs ')} -> ${outcome.kept === null ? 'tie, nothing kept' : `kept ${outcome.kept === 0 ? 'A' : 'B'}`} (pairs kept ${kept})`,
          );
          progress.report(done, config.users);
          return outcome;
        },
      );
      progress.finish();
      return all;
    });
    const swipes = outcomes.filter((o) => o.kept !== null).length;

    await stages.run('labelling', () => waitLabelled(data.db, swipes));
    const job = await stages.run('refresh', () =>
      followRefresh(config, services.orchestrator.url, data.apiKey, stages),
    );
    const routing = await stages.run('routing', async () => {
      if (!job.experimentId) {
        say('routing', 'no candidate, no experiment: nobody to route');
        return {};
      }
      const arms = await routeUsers(e, data.db, profiles, config.routingUsers, config.concurrency);
      for (const [checkpoint, n] of Object.entries(arms)) say('routing', `${checkpoint}: ${n} replies`);
      return arms;
    });

    const repeated =
      config.refreshes > 1
        ? await stages.run('refreshes', () =>
            repeatRefreshes(
              config,
              { orchestrator: services.orchestrator.url, gateway: services.gateway.url },
              data.apiKey,
              stages,
            ),
          )
        : undefined;

    const report: LoopReport = await stages.run('report', async () => {
      // The newest candidate still served (with --refreshes, the first one's experiment was stopped since).
      const candidate =
        repeated?.jobs.findLast((j) => j.status === 'succeeded')?.checkpointId ??
        job.checkpointId ??
        config.baseModel;
      const prompt = {
        text: PROMPT,
        base: await greedy(config.modelUrl, config.baseModel),
        candidate: await greedy(config.modelUrl, candidate),
      };
      await stopServices();
      // The engine outlives this run's database (the next run drops it): nothing would unload its adapters.
      for (const name of await adapterNamesOf(data.db)) {
        await call(config.modelUrl, 'POST', '/unload_lora_adapter', { body: { lora_name: name } }).catch(
          (error: unknown) => say('report', `could not unload ${name}: ${errorText(error)}`),
        );
      }
      return {
        ...partial(),
        finishedAt: new Date().toISOString(),
        users: { simulated: outcomes.length, swipesKept: swipes, ties: outcomes.length - swipes },
        ...summarizeJob(job),
        routing,
        prompt,
        ...(repeated && { refreshes: repeated }),
      };
    });
    writeReport(report, config.reportPath);
    printReport(report, config.reportPath);
  } catch (error) {
    say('loop', `FAILED: ${errorText(error)}`);
    writeReport({ ...partial(), error: errorText(error) }, config.reportPath);
    say('loop', `partial report written to ${config.reportPath}`);
    process.exitCode = 1;
  } finally {
    stages.stop();
    await stopServices();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`rl-loop failed: ${errorText(error)}\n`);
  process.exit(1);
});
