import {
  benchmarkMetrics,
  type EpisodeDeps,
  type EpisodeResult,
  type EpmMetrics,
  type EpmVerdict,
  epmMetrics,
  norm,
  runEpisode,
  type SentientProfile,
  type SimulatorOptions,
} from '@echoloop/sentient';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderReportHtml, type ReportView } from '../report/report-html';

export interface EvaluationOptions {
  profiles: readonly SentientProfile[];
  deps: () => EpisodeDeps;
  /** Where finished episodes are kept; those already there are not run again (resume). */
  store: EpisodeStore;
  concurrency: number;
  /** 'epm' needs a judge in `deps`. */
  mode?: SimulatorOptions['mode'];
  maxPolicyTurns?: number;
  onProgress?: (progress: { done: number; total: number; resumed: number; lastProfileId: string }) => void;
}

/** Finished episodes of one evaluation, by profile id. */
export interface EpisodeStore {
  finished(): Promise<Map<string, EpisodeResult>>;
  save(episode: EpisodeResult): Promise<void>;
}

export interface EvaluationReport {
  title: string;
  createdAt: string;
  pinned: ReportView['pinned'];
  metrics: ReturnType<typeof benchmarkMetrics>;
  /** Present when the episodes carry a C/A/P vector (a judge was configured). */
  epm?: EpmMetrics;
  episodes: (Pick<EpisodeResult, 'profileId' | 'turns' | 'finalScore' | 'endReason' | 'reward'> & {
    epmVerdict?: EpmVerdict;
  })[];
}

/** An episode store in a folder: one JSON line per finished episode. */
export function fileStore(outDir: string): EpisodeStore {
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'episodes.jsonl');
  return {
    async finished() {
      const found = new Map<string, EpisodeResult>();
      if (!existsSync(file)) return found;
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const episode = JSON.parse(line) as EpisodeResult;
        found.set(episode.profileId, episode);
      }
      return found;
    },
    async save(episode) {
      appendFileSync(file, `${JSON.stringify(episode)}\n`);
    },
  };
}

/** Runs every profile's episode not in the store yet, at most `concurrency` at once; returns all, in profile order. */
export async function runEpisodes(options: EvaluationOptions): Promise<EpisodeResult[]> {
  const finished = await options.store.finished();
  const resumed = finished.size;
  const queue = options.profiles.filter((p) => !finished.has(p.id));
  let done = resumed;
  const worker = async () => {
    for (let profile = queue.shift(); profile; profile = queue.shift()) {
      const episode = await runEpisode(profile, options.deps(), {
        ...(options.mode && { mode: options.mode }),
        ...(options.maxPolicyTurns !== undefined && { maxPolicyTurns: options.maxPolicyTurns }),
      });
      await options.store.save(episode);
      finished.set(profile.id, episode);
      done += 1;
      options.onProgress?.({ done, total: options.profiles.length, resumed, lastProfileId: profile.id });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return options.profiles.flatMap((p) => {
    const episode = finished.get(p.id);
    return episode ? [episode] : [];
  });
}

/** The report of finished episodes: metrics, per-episode summary, and its HTML page. */
export function buildReport(
  title: string,
  pinned: ReportView['pinned'],
  profiles: readonly SentientProfile[],
  episodes: readonly EpisodeResult[],
): { report: EvaluationReport; html: string } {
  const withVector = episodes.some((e) => e.epm);
  const report: EvaluationReport = {
    title,
    createdAt: new Date().toISOString(),
    pinned,
    metrics: benchmarkMetrics(episodes, profiles),
    ...(withVector && { epm: epmMetrics(episodes) }),
    episodes: episodes.map(({ profileId, turns, finalScore, endReason, reward, epm }) => ({
      profileId,
      turns,
      finalScore,
      endReason,
      reward,
      ...(epm && { epmVerdict: epm.verdict }),
    })),
  };
  return { report, html: renderReportHtml(reportView(report, episodes)) };
}

/** The CLI's run: episodes in `outDir/episodes.jsonl` (resumable), then `report.json` and `report.html` there. */
export async function runEvaluation(
  options: Omit<EvaluationOptions, 'store'> & { outDir: string; title: string; pinned: ReportView['pinned'] },
): Promise<EvaluationReport> {
  const episodes = await runEpisodes({ ...options, store: fileStore(options.outDir) });
  const { report, html } = buildReport(options.title, options.pinned, options.profiles, episodes);
  writeFileSync(path.join(options.outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(options.outDir, 'report.html'), html);
  return report;
}

const pct = (rate: number | null) => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);
const fixed = (value: number | null, digits = 2) => (value === null ? 'n/a' : value.toFixed(digits));

function epmView(metrics: EpmMetrics | undefined, episodes: readonly EpisodeResult[]): ReportView['epm'] {
  if (!metrics) return undefined;
  return {
    metrics: [
      { label: 'episodes with a C/A/P vector', value: String(metrics.count) },
      { label: 'EPM success', value: `${metrics.successes} (${pct(metrics.successRate)})` },
      { label: 'EPM failure', value: `${metrics.failures} (${pct(metrics.failureRate)})` },
      { label: 'undecided', value: String(metrics.undecided) },
      { label: 'mean initial deficit ‖P₀‖', value: fixed(metrics.meanInitialDeficit) },
      { label: 'mean energy E / ‖P₀‖', value: fixed(metrics.meanEnergyRatio) },
      { label: 'mean distance closed 1 − ‖P_T‖/‖P₀‖', value: fixed(metrics.meanDistanceImprovement) },
      ...epmQRows(metrics.epmQ),
    ],
    rows: episodes.flatMap((e) => {
      if (!e.epm) return [];
      const { p0, position, energy } = e.epm.state;
      const vec = (v: typeof p0) => `(${v.C.toFixed(1)}, ${v.A.toFixed(1)}, ${v.P.toFixed(1)})`;
      return [
        {
          profileId: e.profileId,
          p0: vec(p0),
          final: vec(position),
          energy: energy.toFixed(2),
          projection: (e.epm.state.steps.at(-1)?.projection ?? -norm(p0)).toFixed(2),
          verdict: e.epm.verdict,
        },
      ];
    }),
  };
}

function reportView(report: EvaluationReport, episodes: readonly EpisodeResult[]): ReportView {
  const m = report.metrics;
  const breakdown = (title: string, groups: Record<string, typeof m>) => ({
    title,
    rows: Object.entries(groups)
      .filter(([, g]) => g.count > 0)
      .map(([key, g]) => ({
        key,
        episodes: g.count,
        meanFinal: g.meanFinalScore ?? 0,
        success: g.successRate ?? 0,
        failure: g.failureRate ?? 0,
      })),
  });
  return {
    title: report.title,
    createdAt: report.createdAt,
    pinned: report.pinned,
    metrics: [
      { label: 'episodes', value: String(m.count) },
      { label: 'mean final emotion', value: m.meanFinalScore === null ? 'n/a' : m.meanFinalScore.toFixed(1) },
      { label: 'success (final ≥ 100)', value: `${m.successes} (${pct(m.successRate)})` },
      { label: 'failure (final < 10)', value: `${m.failures} (${pct(m.failureRate)})` },
      { label: 'errors (unparseable simulator output)', value: String(m.errors) },
    ],
    epm: epmView(report.epm, episodes),
    breakdowns: [
      breakdown('By hidden need', m.byHiddenNeed as Record<string, typeof m>),
      breakdown('By persona type', m.byPersonaType as Record<string, typeof m>),
    ],
    trajectories: episodes.map((e) => ({
      profileId: e.profileId,
      scores: [e.startScore, ...e.trace.map((t) => t.score)],
      finalScore: e.finalScore,
      endReason: e.endReason,
    })),
  };
}

/** EPM-Q's index, its three dimensions and nine indices (0–100), when any episode kept its judge's levels. */
function epmQRows(q: EpmMetrics['epmQ']): { label: string; value: string }[] {
  if (!q) return [{ label: 'EPM-Q', value: 'n/a (no episode kept its judge levels)' }];
  const { indices: i } = q;
  return [
    { label: `EPM-Q index (${q.episodes} episodes)`, value: fixed(q.index, 1) },
    {
      label: 'EPM-Q outcome: RDI, E_tot, S_net',
      value: `${fixed(q.outcome, 1)} (${[i.rdi, i.eTotal, i.sNet].map((v) => fixed(v, 1)).join(', ')})`,
    },
    {
      label: 'EPM-Q efficiency: ρ, S_proj, τ',
      value: `${fixed(q.efficiency, 1)} (${[i.rho, i.sProj, i.tau].map((v) => fixed(v, 1)).join(', ')})`,
    },
    {
      label: 'EPM-Q stability: R_pos, Align, Pen',
      value: `${fixed(q.stability, 1)} (${[i.rPos, i.align, i.pen].map((v) => fixed(v, 1)).join(', ')})`,
    },
  ];
}
