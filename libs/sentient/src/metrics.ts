import { type EpisodeResult } from './episode';
import {
  HIDDEN_NEEDS,
  type HiddenNeed,
  PERSONA_TYPES,
  type PersonaType,
  type SentientProfile,
} from './profile';
import { SAGE_MIN_SCORE } from './state';

export interface MetricGroup {
  /** Episodes that finished (errors excluded). */
  count: number;
  /** Mean final emotion score; null when count is 0. */
  meanFinalScore: number | null;
  /** Final score ≥ 100. */
  successes: number;
  /** Final score < 10. */
  failures: number;
  /** successes / count, in [0, 1]; null when count is 0. */
  successRate: number | null;
  failureRate: number | null;
}

export interface BenchmarkMetrics extends MetricGroup {
  /** Episodes that ended as 'error'; they count in no other figure. */
  errors: number;
  byHiddenNeed: Record<HiddenNeed, MetricGroup>;
  byPersonaType: Record<PersonaType, MetricGroup>;
}

function group(scores: readonly number[], maxScore: number): MetricGroup {
  const count = scores.length;
  const successes = scores.filter((score) => score >= maxScore).length;
  const failures = scores.filter((score) => score < SAGE_MIN_SCORE).length;
  return {
    count,
    meanFinalScore: count ? scores.reduce((sum, score) => sum + score, 0) / count : null,
    successes,
    failures,
    successRate: count ? successes / count : null,
    failureRate: count ? failures / count : null,
  };
}

/**
 * SAGE's benchmark figures (§1.6): mean final emotion, share ending at ≥ 100, share ending below 10, overall and
 * per hidden need and persona type. Throws when an episode's profile is missing.
 */
export function benchmarkMetrics(
  episodes: readonly Pick<EpisodeResult, 'profileId' | 'finalScore' | 'endReason'>[],
  profiles: readonly SentientProfile[],
  maxScore = 100,
): BenchmarkMetrics {
  const byId = new Map(profiles.map((profile) => [profile.id, profile]));
  const done = episodes.filter((episode) => episode.endReason !== 'error');
  const rows = done.map((episode) => {
    const profile = byId.get(episode.profileId);
    if (!profile) throw new Error(`no profile "${episode.profileId}" for an episode`);
    return { profile, score: episode.finalScore };
  });
  const scoresWhere = (keep: (profile: SentientProfile) => boolean) =>
    rows.filter((row) => keep(row.profile)).map((row) => row.score);
  return {
    ...group(
      rows.map((row) => row.score),
      maxScore,
    ),
    errors: episodes.length - done.length,
    byHiddenNeed: Object.fromEntries(
      HIDDEN_NEEDS.map((need) => [
        need,
        group(
          scoresWhere((profile) => profile.hiddenNeed === need),
          maxScore,
        ),
      ]),
    ) as Record<HiddenNeed, MetricGroup>,
    byPersonaType: Object.fromEntries(
      PERSONA_TYPES.map((type) => [
        type,
        group(
          scoresWhere((profile) => profile.personaType === type),
          maxScore,
        ),
      ]),
    ) as Record<PersonaType, MetricGroup>,
  };
}
