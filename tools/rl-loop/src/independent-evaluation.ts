import { pairedDifference } from '@echoloop/experiments';
import { parseProfilesJsonl } from '@echoloop/sentient';
import { waitFor } from '@echoloop/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { SentimentIntensityAnalyzer } from 'vader-sentiment';
import { evalRunner } from './clients';
import { ROOT, say } from './output';

/**
 * The scorer the training never saw. Training rewards come from the labeller's LLM judges and the sentient
 * simulator's own emotion score; this reads how the simulated user sounds in the words it writes back, with VADER
 * (Hutto & Gilbert, ICWSM 2014; vader-sentiment, the project's own JavaScript port), a published rule-based
 * valence model validated against human raters, that needs no model download. It is applied to the user's messages,
 * not to the companion's: VADER rates "I'm so sorry, that sounds hard" as negative, so scoring the reply itself
 * would reward cheerfulness, not care.
 */
export const INDEPENDENT_SCORER =
  "VADER compound (vader-sentiment 1.1.3) of the simulated user's messages after each reply, mean per conversation";

export interface IndependentEvaluation {
  scorer: string;
  /** Benchmark-pool profiles both checkpoints played (the pool training never sees), each with the same seeds. */
  profiles: number;
  maxTurns: number;
  parent: { checkpointId: string; evaluationId: string; mean: number | null };
  candidate: { checkpointId: string; evaluationId: string; mean: number | null };
  /** Paired (per profile) candidate − parent, with its 95% paired t interval; null under two pairs. */
  delta: { n: number; mean: number; interval: [number, number] } | null;
  verdict: 'better' | 'worse' | 'no significant difference' | 'not enough conversations';
}

/** The first `n` benchmark-pool profiles, spread over hidden needs by the eval-runner's own order. */
export function benchmarkProfileIds(n: number): string[] {
  const text = readFileSync(path.join(ROOT, 'data/sentient/profiles.jsonl'), 'utf8');
  return parseProfilesJsonl(text)
    .profiles.filter((p) => p.pool === 'benchmark')
    .slice(0, n)
    .map((p) => p.id);
}

export const userMood = (messages: readonly { role: string; content: string }[]): number | null => {
  // The opener is the profile's, written before any reply: only what the user says after one counts.
  const firstReply = messages.findIndex((m) => m.role === 'assistant');
  const said = messages.slice(firstReply + 1).filter((m) => m.role === 'user' && m.content.trim());
  if (firstReply < 0 || said.length === 0) return null;
  const scores = said.map((m) => SentimentIntensityAnalyzer.polarity_scores(m.content).compound);
  return scores.reduce((a, b) => a + b, 0) / scores.length;
};

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * Parent and candidate play the same benchmark profiles (eval-runner evaluations capped at `maxTurns`, the same
 * simulator seeds), and the user's mood in each conversation is scored by VADER; the difference is paired per profile.
 */
export async function evaluateIndependently(
  urls: { evalRunner: string },
  key: string,
  db: DataSource,
  checkpoints: { parent: string; candidate: string },
  profiles: string[],
  maxTurns: number,
): Promise<IndependentEvaluation> {
  const runner = evalRunner(urls.evalRunner, key);
  const start = (checkpointId: string) =>
    runner.call('post', '/v1/evaluations', { body: { checkpointId, profiles, maxTurns } });
  const [parentRun, candidateRun] = [await start(checkpoints.parent), await start(checkpoints.candidate)];
  say('evaluation', `${profiles.length} benchmark profiles, ${maxTurns} turns each, parent and candidate`);
  for (const run of [parentRun, candidateRun]) {
    await waitFor(
      async () => {
        const { status, error } = await runner.call('get', '/v1/evaluations/{id}', { path: { id: run.id } });
        if (status === 'failed') throw new Error(`evaluation ${run.id} failed: ${error}`);
        return status === 'finished';
      },
      { timeoutMs: 3_600_000, intervalMs: 2_000, what: `evaluation ${run.id}` },
    );
  }
  const moods = async (evaluationId: string) => {
    const rows = (await db.query(
      `SELECT profile_id, episode->'history' AS history FROM evaluation_episodes WHERE evaluation_id = $1`,
      [evaluationId],
    )) as { profile_id: string; history: { role: string; content: string }[] }[];
    return new Map(rows.map((r) => [r.profile_id, userMood(r.history)]));
  };
  const [p, c] = [await moods(parentRun.id), await moods(candidateRun.id)];
  const both = profiles.filter((id) => p.get(id) != null && c.get(id) != null);
  const delta =
    both.length >= 2
      ? pairedDifference(
          both.map((id) => c.get(id) as number),
          both.map((id) => p.get(id) as number),
        )
      : null;
  const verdict: IndependentEvaluation['verdict'] = !delta
    ? 'not enough conversations'
    : delta.interval[0] > 0
      ? 'better'
      : delta.interval[1] < 0
        ? 'worse'
        : 'no significant difference';
  const values = (m: Map<string, number | null>) => both.map((id) => m.get(id) as number);
  return {
    scorer: INDEPENDENT_SCORER,
    profiles: both.length,
    maxTurns,
    parent: { checkpointId: checkpoints.parent, evaluationId: parentRun.id, mean: mean(values(p)) },
    candidate: { checkpointId: checkpoints.candidate, evaluationId: candidateRun.id, mean: mean(values(c)) },
    delta,
    verdict,
  };
}
