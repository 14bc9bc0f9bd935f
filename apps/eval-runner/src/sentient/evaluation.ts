import {
  SAGE_START_SCORE,
  benchmarkMetrics,
  type EpisodeDeps,
  type EpisodeResult,
  runEpisode,
  type SentientProfile,
} from '@echoloop/sentient';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderReportHtml, type ReportView } from '../report/report-html';

export interface EvaluationOptions {
  profiles: readonly SentientProfile[];
  deps: () => EpisodeDeps;
  /** Where episodes (JSONL), report.json and report.html go; episodes already there are not run again. */
  outDir: string;
  concurrency: number;
  pinned: ReportView['pinned'];
  title: string;
  maxPolicyTurns?: number;
  onProgress?: (progress: { done: number; total: number; resumed: number; lastProfileId: string }) => void;
}

export interface EvaluationReport {
  title: string;
  createdAt: string;
  pinned: ReportView['pinned'];
  metrics: ReturnType<typeof benchmarkMetrics>;
  episodes: Pick<EpisodeResult, 'profileId' | 'turns' | 'finalScore' | 'endReason' | 'reward'>[];
}

const EPISODES_FILE = 'episodes.jsonl';

/**
 * Runs every profile's episode (at most `concurrency` at once), appending each finished episode to the run's
 * JSONL file so a stopped run resumes where it was, then writes the JSON and HTML reports.
 */
export async function runEvaluation(options: EvaluationOptions): Promise<EvaluationReport> {
  mkdirSync(options.outDir, { recursive: true });
  const file = path.join(options.outDir, EPISODES_FILE);
  const finished = new Map<string, EpisodeResult>();
  if (existsSync(file)) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const episode = JSON.parse(line) as EpisodeResult;
      finished.set(episode.profileId, episode);
    }
  }
  const resumed = finished.size;
  const queue = options.profiles.filter((p) => !finished.has(p.id));
  let done = resumed;
  const worker = async () => {
    for (let profile = queue.shift(); profile; profile = queue.shift()) {
      const episode = await runEpisode(profile, options.deps(), {
        ...(options.maxPolicyTurns !== undefined && { maxPolicyTurns: options.maxPolicyTurns }),
      });
      appendFileSync(file, `${JSON.stringify(episode)}\n`);
      finished.set(profile.id, episode);
      done += 1;
      options.onProgress?.({ done, total: options.profiles.length, resumed, lastProfileId: profile.id });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));

  const episodes = options.profiles.flatMap((p) => {
    const episode = finished.get(p.id);
    return episode ? [episode] : [];
  });
  const report: EvaluationReport = {
    title: options.title,
    createdAt: new Date().toISOString(),
    pinned: options.pinned,
    metrics: benchmarkMetrics(episodes, options.profiles),
    episodes: episodes.map(({ profileId, turns, finalScore, endReason, reward }) => ({
      profileId,
      turns,
      finalScore,
      endReason,
      reward,
    })),
  };
  writeFileSync(path.join(options.outDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(options.outDir, 'report.html'), renderReportHtml(reportView(report, episodes)));
  return report;
}

const pct = (rate: number | null) => (rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`);

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
    breakdowns: [
      breakdown('By hidden need', m.byHiddenNeed as Record<string, typeof m>),
      breakdown('By persona type', m.byPersonaType as Record<string, typeof m>),
    ],
    trajectories: episodes.map((e) => ({
      profileId: e.profileId,
      scores: [SAGE_START_SCORE, ...e.trace.map((t) => t.score)],
      finalScore: e.finalScore,
      endReason: e.endReason,
    })),
  };
}
