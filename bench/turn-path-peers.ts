// Echoloop's turn path against its peers, in one run, in front of the same paced model server: the model server
// called directly (the baseline), Echoloop over socket.io, over SSE and as OpenAI's /v1/chat/completions (each
// bench user's personal key, the very request and stream the peers get), LiteLLM's proxy (one worker) and
// Portkey's gateway, at each concurrency and first-token delay. The targets take turns within every round (the
// order rotates round to round), so a noisy moment is shared rather than landing on one of them. Prints a table,
// progress on stderr, and writes bench/results/turn-path-peers.json.
//
//   node -r @swc-node/register bench/turn-path-peers.ts [--levels 1,50,200] [--rounds 3] [--delays 0,150]
//     [--samples 30] [--rate 50] [--tokens 40] [--targets direct,socketio,sse,openai,litellm,portkey] [--gateway-root DIR] [--out FILE]
//     [--quiet-ms 0] [--model-keep-alive-ms 5000]
//
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka. --gateway-root runs the
// gateway (its migrations and seed too) from another checkout, e.g. a worktree of an earlier commit.
import { loadavg } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { log, prepareDatabase, ROOT, startModel, writeBenchResult, type BenchProcess } from './bench-env';
import { quietAgain, round, treeCpuSeconds } from './stats';
import {
  createUsers,
  openAiStream,
  openAiTurn,
  socketTurn,
  sseTurn,
  type BenchUser,
  type StreamTiming,
} from './stream-clients';
import {
  LABELS,
  peersTable,
  summarizeLevel,
  TARGETS,
  type LevelResult,
  type Target,
  type TargetName,
  type TargetRun,
} from './turn-path-levels';
import {
  startEcholoopGateway,
  startLiteLlm,
  startPortkey,
  targetVersions,
  type Proxy,
} from './turn-path-targets';

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '1,50,200' },
    rounds: { type: 'string', default: '3' },
    /** At least this many streams per target and level: a level below it runs several batches a round. */
    samples: { type: 'string', default: '30' },
    delays: { type: 'string', default: '0,150' },
    rate: { type: 'string', default: '50' },
    tokens: { type: 'string', default: '40' },
    targets: { type: 'string', default: TARGETS.join(',') },
    'gateway-root': { type: 'string', default: ROOT },
    /**
     * A quiet spell before each target's streams: traffic that comes in bursts after a lull, which finds whatever
     * a target lets go when idle (connections, caches) gone.
     */
    'quiet-ms': { type: 'string', default: '0' },
    /**
     * How long the model server keeps an idle connection (vLLM's VLLM_HTTP_TIMEOUT_KEEP_ALIVE, 5 s by default);
     * Echoloop's LLM_KEEP_ALIVE_MS is set 1 s below it, as the defaults are. A pause longer than this makes every
     * target open new connections for its next burst.
     */
    'model-keep-alive-ms': { type: 'string', default: '5000' },
    /** GATEWAY_WORKERS for Echoloop: the processes sharing its port (CPU and RSS are summed over them). */
    'gateway-workers': { type: 'string', default: '1' },
    out: { type: 'string', default: path.join(ROOT, 'bench/results/turn-path-peers.json') },
  },
});
const numbers = (list: string) => list.split(',').map(Number);
const levels = numbers(values.levels);
const delays = numbers(values.delays);
const rounds = Number(values.rounds);
const quietMs = Number(values['quiet-ms']);
const samples = Number(values.samples);
const gatewayRoot = path.resolve(values['gateway-root']);
const gatewayWorkers = Number(values['gateway-workers']);
const modelKeepAliveMs = Number(values['model-keep-alive-ms']);
// The gateway's LLM_KEEP_ALIVE_MS is 1 s below it, and must stay positive.
if (!(modelKeepAliveMs > 1_000)) throw new Error('--model-keep-alive-ms must be a number of ms above 1000');
const wanted = new Set(values.targets.split(',').concat('direct'));
const unknown = [...wanted].filter((name) => !(TARGETS as readonly string[]).includes(name));
if (unknown.length) throw new Error(`unknown targets ${unknown.join(', ')}; known: ${TARGETS.join(', ')}`);

async function main(): Promise<void> {
  const started = Date.now();
  log(`preparing a database from ${gatewayRoot}`);
  const db = await prepareDatabase(gatewayRoot);
  const model = await startModel(Number(values.rate), Number(values.tokens), 0, modelKeepAliveMs);
  const processes: BenchProcess[] = [];
  const skipped: Partial<Record<TargetName, string>> = {};
  let users: BenchUser[] = [];
  try {
    const targets: Target[] = [{ name: 'direct', stream: () => openAiStream(model.url) }];
    let message = 0;
    if (wanted.has('socketio') || wanted.has('sse') || wanted.has('openai')) {
      const gateway = await startEcholoopGateway(
        gatewayRoot,
        db.url,
        model.url,
        gatewayWorkers,
        modelKeepAliveMs - 1_000,
      );
      processes.push(gateway);
      log(`Echoloop gateway pid ${gateway.pid} at ${gateway.url}; creating ${Math.max(...levels)} users`);
      users = await createUsers(gateway.url, Math.max(...levels), db.characterId, {
        apiKeys: wanted.has('openai'),
      });
      const turnId = () => `bench-${message++}`;
      if (wanted.has('socketio'))
        targets.push({ name: 'socketio', pid: gateway.pid, stream: (i) => socketTurn(users[i]!, turnId()) });
      if (wanted.has('sse'))
        targets.push({
          name: 'sse',
          pid: gateway.pid,
          stream: (i) => sseTurn(gateway.url, users[i]!, turnId()),
        });
      // A fresh opener each stream, so each is a new turn (a new conversation): see openAiTurn.
      if (wanted.has('openai'))
        targets.push({
          name: 'openai',
          pid: gateway.pid,
          stream: (i) => openAiTurn(gateway.url, users[i]!, db.characterId, `hello (${turnId()})`),
        });
    }
    const peers: [TargetName, (modelUrl: string) => Promise<Proxy>][] = [
      ['litellm', startLiteLlm],
      ['portkey', startPortkey],
    ];
    for (const [name, start] of peers) {
      if (!wanted.has(name)) continue;
      try {
        const proxy = await start(model.url);
        processes.push(proxy);
        log(`${LABELS[name]} pid ${proxy.pid} at ${proxy.baseUrl}`);
        targets.push({ name, pid: proxy.pid, stream: () => openAiStream(proxy.baseUrl, proxy.headers) });
      } catch (error) {
        skipped[name] = error instanceof Error ? error.message : String(error);
        log(`skipping ${LABELS[name]}: ${skipped[name]}`);
      }
    }

    log('warming up every target');
    for (const target of targets) {
      await target.stream(0);
      await Promise.all(
        Array.from({ length: Math.min(10, Math.max(...levels)) }, (_, i) => target.stream(i)),
      );
    }

    const results: LevelResult[] = [];
    const steps = delays.length * levels.length * rounds;
    let step = 0;
    for (const delay of delays) {
      await model.setFirstTokenDelay(delay);
      for (const level of levels) {
        const runs = new Map(
          targets.map((t): [TargetName, TargetRun] => [
            t.name,
            { timings: [], cpu: 0, wallMs: 0, errors: [] },
          ]),
        );
        for (let r = 0; r < rounds; r++) {
          const order = targets.map((_, i) => targets[(i + r) % targets.length]!);
          for (const target of order) {
            const run = runs.get(target.name)!;
            if (quietMs > 0) await sleep(quietMs);
            const cpuBefore = target.pid ? treeCpuSeconds(target.pid) : 0;
            const outcomes: PromiseSettledResult<StreamTiming>[] = [];
            const batchesStarted = performance.now();
            for (let b = 0; b < Math.ceil(samples / (level * rounds)); b++)
              outcomes.push(
                ...(await Promise.allSettled(Array.from({ length: level }, (_, i) => target.stream(i)))),
              );
            run.wallMs += performance.now() - batchesStarted;
            if (target.pid) {
              await quietAgain(target.pid);
              run.cpu += treeCpuSeconds(target.pid) - cpuBefore;
            }
            for (const outcome of outcomes) {
              if (outcome.status === 'fulfilled') run.timings.push(outcome.value);
              else
                run.errors.push(
                  String(outcome.reason instanceof Error ? outcome.reason.message : outcome.reason),
                );
            }
          }
          step++;
          const elapsed = (Date.now() - started) / 1000;
          log(
            `[${step}/${steps}] delay ${delay} ms, ${level} streams, round ${r + 1}/${rounds} done ` +
              `(${Math.round(elapsed)} s elapsed${step < steps ? `, ~${Math.round((elapsed / step) * (steps - step))} s left` : ''})`,
          );
        }
        const result = summarizeLevel(delay, level, targets, runs);
        results.push(result);
        for (const t of result.targets)
          log(
            `  ${LABELS[t.target]}: overhead p50 ${t.overheadTtftMs.p50} ms, p99 ${t.overheadTtftMs.p99} ms${t.errors ? `, ${t.errors} errors` : ''}`,
          );
      }
    }
    report(results, skipped, targets);
  } finally {
    users.forEach((user) => user.socket.disconnect());
    await Promise.all(processes.map((p) => p.stop()));
    model.stop();
    await db.drop();
  }
}

function report(
  results: LevelResult[],
  skipped: Partial<Record<TargetName, string>>,
  targets: Target[],
): void {
  const table = peersTable({
    rate: Number(values.rate),
    tokens: Number(values.tokens),
    modelKeepAliveMs,
    rounds,
    gatewayRoot,
    gatewayWorkers,
    skipped,
    results,
  });
  process.stdout.write(table);
  // With the command, date and machine, as every committed result (writeBenchResult).
  const out = writeBenchResult(
    path.resolve(values.out),
    {
      benchmark: 'turn-path-peers',
      loadAverageAtEnd: loadavg().map(round),
      gatewayRoot,
      gatewayWorkers,
      versions: targetVersions(gatewayRoot),
      rate: Number(values.rate),
      tokens: Number(values.tokens),
      rounds,
      samples,
      delays,
      quietMs,
      modelKeepAliveMs,
      targets: targets.map((t) => t.name),
      skipped,
      results,
    },
    table,
  );
  log(`wrote ${out}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
