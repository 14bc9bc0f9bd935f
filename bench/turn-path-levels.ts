// What bench/turn-path-peers.ts measures and keeps: its targets, what one target's streams at one level come to
// (time to first token, overhead over the direct baseline, gaps, streams/s, CPU and memory), and the ratios of
// Echoloop's transports to its peers, and the tables it prints.
import { formatTable } from './bench-env';
import { round, treeRssMiB, type Summary } from './stats';
import { summarizeTimings, type StreamTiming } from './stream-clients';

export const TARGETS = ['direct', 'socketio', 'sse', 'openai', 'litellm', 'portkey'] as const;
export type TargetName = (typeof TARGETS)[number];
export const LABELS: Record<TargetName, string> = {
  direct: 'direct (baseline)',
  socketio: 'Echoloop socket.io',
  sse: 'Echoloop SSE',
  openai: 'Echoloop /v1/chat/completions',
  litellm: 'LiteLLM proxy',
  portkey: 'Portkey gateway',
};

export interface Target {
  name: TargetName;
  /** The process whose CPU and memory are the target's (none for the baseline). */
  pid?: number;
  stream(index: number): Promise<StreamTiming>;
}

export interface TargetResult {
  target: TargetName;
  streams: number;
  errors: number;
  firstError?: string;
  ttft: Summary;
  gap: Summary;
  total: Summary;
  overheadTtftMs: { p50: number; p99: number };
  /**
   * Streams finished per second of the target's batches (streams ÷ their wall time, the quiet spells and the
   * wait for its processes to go quiet left out): with the model paced, the level ÷ a reply's length at best.
   */
  streamsPerSecond: number;
  cpuMsPerStream: number | null;
  rssMiB: number | null;
}

export type Ratio = Record<'overheadP50' | 'overheadP99' | 'cpuPerStream' | 'rss', number | null>;

export interface LevelResult {
  firstTokenDelayMs: number;
  concurrency: number;
  targets: TargetResult[];
  /** Echoloop ÷ peer, e.g. `socketio/portkey`; null where the peer's value is not above zero. */
  ratios: Record<string, Ratio>;
}

/** One target's streams at one level: their timings, the target's CPU seconds and wall ms over them, failures. */
export interface TargetRun {
  timings: StreamTiming[];
  cpu: number;
  wallMs: number;
  errors: string[];
}

export function summarizeLevel(
  delay: number,
  level: number,
  targets: Target[],
  runs: Map<TargetName, TargetRun>,
): LevelResult {
  const direct = summarizeTimings(runs.get('direct')!.timings);
  const rows = targets.map((target): TargetResult => {
    const run = runs.get(target.name)!;
    const s = summarizeTimings(run.timings);
    return {
      target: target.name,
      streams: run.timings.length,
      errors: run.errors.length,
      ...(run.errors[0] && { firstError: run.errors[0].slice(0, 300) }),
      ...s,
      overheadTtftMs: { p50: round(s.ttft.p50 - direct.ttft.p50), p99: round(s.ttft.p99 - direct.ttft.p99) },
      streamsPerSecond: round((run.timings.length * 1000) / Math.max(1, run.wallMs)),
      cpuMsPerStream: target.pid ? round((run.cpu * 1000) / Math.max(1, run.timings.length)) : null,
      rssMiB: target.pid ? treeRssMiB(target.pid) : null,
    };
  });
  const find = (name: TargetName) => rows.find((r) => r.target === name);
  const ratio = (a: number | null | undefined, b: number | null | undefined) =>
    a === null || a === undefined || b === null || b === undefined || b <= 0 ? null : round(a / b);
  const ratios: Record<string, Ratio> = {};
  for (const ours of ['socketio', 'sse', 'openai'] as const)
    for (const peer of ['portkey', 'litellm'] as const) {
      const a = find(ours);
      const b = find(peer);
      if (!a || !b) continue;
      ratios[`${ours}/${peer}`] = {
        overheadP50: ratio(a.overheadTtftMs.p50, b.overheadTtftMs.p50),
        overheadP99: ratio(a.overheadTtftMs.p99, b.overheadTtftMs.p99),
        cpuPerStream: ratio(a.cpuMsPerStream, b.cpuMsPerStream),
        rss: ratio(a.rssMiB, b.rssMiB),
      };
    }
  return { firstTokenDelayMs: delay, concurrency: level, targets: rows, ratios };
}

/** What a peers run measured, as the bench prints it (and docs/benchmarks.md shows it). */
export interface PeersRun {
  rate: number;
  tokens: number;
  modelKeepAliveMs: number;
  rounds: number;
  gatewayRoot: string;
  gatewayWorkers: number;
  skipped: Partial<Record<TargetName, string>>;
  results: LevelResult[];
}

/** The printed tables of a peers run: every target at every level, then Echoloop ÷ each peer. */
export function peersTable(r: PeersRun): string {
  const pair = (a: number | null, b: number | null) => `${a ?? '-'} / ${b ?? '-'}`;
  const fmt = (s: Summary) => pair(s.p50, s.p99);
  const main = formatTable(
    [
      'delay ms',
      'streams',
      'target',
      'TTFT p50/p99',
      'overhead p50/p99',
      'gap p50/p99',
      'streams/s',
      'CPU ms/stream',
      'RSS MiB',
      'errors',
    ],
    r.results.flatMap((level) =>
      level.targets.map((t) => [
        String(level.firstTokenDelayMs),
        String(level.concurrency),
        LABELS[t.target],
        fmt(t.ttft),
        t.target === 'direct' ? '-' : pair(t.overheadTtftMs.p50, t.overheadTtftMs.p99),
        fmt(t.gap),
        String(t.streamsPerSecond),
        String(t.cpuMsPerStream ?? '-'),
        String(t.rssMiB ?? '-'),
        String(t.errors),
      ]),
    ),
  );
  const ratios = formatTable(
    ['delay ms', 'streams', 'Echoloop ÷ peer', 'overhead p50', 'overhead p99', 'CPU/stream', 'RSS'],
    r.results.flatMap((level) =>
      Object.entries(level.ratios).map(([name, q]) => [
        String(level.firstTokenDelayMs),
        String(level.concurrency),
        name
          .replace('socketio', 'socket.io')
          .replace('sse', 'SSE')
          .replace('openai', '/v1/chat/completions')
          .replace('portkey', 'Portkey')
          .replace('litellm', 'LiteLLM'),
        String(q.overheadP50 ?? 'n/a'),
        String(q.overheadP99 ?? 'n/a'),
        String(q.cpuPerStream ?? 'n/a'),
        String(q.rss ?? 'n/a'),
      ]),
    ),
  );
  const notMeasured = Object.entries(r.skipped).map(
    ([name, reason]) => `\nnot measured: ${name}: ${reason.split('\n')[0]}\n`,
  );
  return (
    `\nTurn path against peers (ms; model at ${r.rate} tok/s, ${r.tokens} tokens, keep-alive ${r.modelKeepAliveMs} ms, ${r.rounds} rounds, ` +
    `gateway from ${r.gatewayRoot}, ${r.gatewayWorkers} process(es))\n${main}\nEcholoop ÷ peer (n/a where the peer's value is not above zero)\n${ratios}` +
    notMeasured.join('')
  );
}
