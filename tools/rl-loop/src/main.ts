// The whole local RL loop for real, generation after generation, with progress, ending with a report:
//   ./echoloop loop [--generations 1] [--users 12] [--turns 3] [--steps 24] [--routing-users 6] [--concurrency 2]
//                   [--threshold-pairs 12] [--min-pairs 6] [--min-validation-pairs 3] [--eval-profiles 8]
//                   [--eval-turns 2] [--gate-profiles 0] [--out reports/rl-loop-<time>.json]
// stack -> fresh database -> services -> per generation: simulated users (multi-turn, swipes) -> labelling ->
// refresh (trigger, training, serving, gate) -> independent evaluation -> experiment (routed users, its decision)
// -> report (also written as JSON, with each stage's wall time and peak RSS).
import { loopConfig } from './config';
import { loopDatabase } from './database';
import { defaultCheckpoint, type Generation, runGeneration } from './generation';
import { errorText, say } from './output';
import { trainProfiles } from './profiles';
import {
  generationReport,
  greedy,
  type LoopReport,
  PROMPT,
  printReport,
  reportTables,
  writeReport,
} from './report';
import { startServices, stopServices } from './services';
import type { Endpoints } from './simulated-users';
import { ensureStack, pauseUpApps } from './stack';
import { StageRunner } from './stages';

async function main(): Promise<void> {
  const config = loopConfig(process.argv.slice(2));
  const startedAt = new Date().toISOString();
  const stages = new StageRunner(config.workDir);
  const generations: Generation[] = [];
  let resumeUpApps: () => Promise<void> = async () => undefined;
  const partial = () => ({
    runId: config.runId,
    startedAt,
    generations: generations.map(generationReport),
    stages: stages.stages,
    refreshPhases: stages.phases,
  });
  // Ctrl-C or a kill: the apps it started are its children, and left running they would go on consuming the
  // stack's topics and driving its jobs beside the next run's.
  const interrupted = (signal: 'SIGINT' | 'SIGTERM', code: number) =>
    process.once(signal, () => {
      say('loop', `interrupted: stopping the services it started; partial report in ${config.reportPath}`);
      writeReport({ ...partial(), error: 'interrupted' }, config.reportPath);
      void stopServices()
        .then(() => resumeUpApps())
        .finally(() => process.exit(code));
    });
  interrupted('SIGINT', 130);
  interrupted('SIGTERM', 143);
  try {
    const stack = await stages.run('stack', () => ensureStack(config.baseGguf));
    resumeUpApps = await pauseUpApps();
    const data = await stages.run('database', () => loopDatabase(config.runId));
    const services = await stages.run('services', () => startServices(config, data, stack));
    const endpoints: Endpoints = {
      gateway: services.gateway.url,
      evalRunner: services.evalRunner.url,
      apiKey: data.apiKey,
      characterId: data.characterId,
      db: data.db,
    };
    const ctx = {
      config,
      data,
      endpoints,
      orchestrator: services.orchestrator.url,
      profiles: trainProfiles(),
      stages,
    };
    for (let index = 1; index <= config.generations; index += 1) {
      const users = generations.flatMap((g) => [...g.users, ...(g.experiment?.users ?? [])]);
      generations.push(
        await runGeneration(ctx, index, {
          previousJob: generations.at(-1)?.job.id,
          drawn: users.length,
        }),
      );
      writeReport({ ...partial(), finishedAt: null }, config.reportPath);
    }

    const report: LoopReport = await stages.run('report', async () => {
      const final = await defaultCheckpoint(endpoints);
      const prompt = {
        text: PROMPT,
        base: await greedy(config.modelUrl, config.baseModel),
        final: await greedy(config.modelUrl, final.modelName),
        finalCheckpoint: final.id,
      };
      return { ...partial(), finishedAt: new Date().toISOString(), prompt };
    });
    writeReport({ ...report, table: reportTables(report) }, config.reportPath);
    printReport(report, config.reportPath);
  } catch (error) {
    say('loop', `FAILED: ${errorText(error)}`);
    writeReport({ ...partial(), error: errorText(error) }, config.reportPath);
    say('loop', `partial report written to ${config.reportPath}`);
    process.exitCode = 1;
  } finally {
    stages.stop();
    await stopServices();
    await resumeUpApps().catch((error: unknown) =>
      say('stack', `could not start up's apps: ${errorText(error)}`),
    );
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`rl-loop failed: ${errorText(error)}\n`);
  process.exit(1);
});
