import { type EpisodeResult } from './episode';
import { makeProfile } from './fixtures.spec-helper';
import { benchmarkMetrics } from './metrics';

const episode = (
  profileId: string,
  finalScore: number,
  endReason: EpisodeResult['endReason'] = 'max_turns',
) => ({
  profileId,
  finalScore,
  endReason,
});

describe('benchmarkMetrics', () => {
  const profiles = [
    makeProfile({ id: 'a', hiddenNeed: 'deep-empathy', personaType: 'negative' }),
    makeProfile({ id: 'b', hiddenNeed: 'deep-empathy', personaType: 'passive' }),
    makeProfile({ id: 'c', hiddenNeed: 'practical-advice', personaType: 'passive' }),
    makeProfile({ id: 'd', hiddenNeed: 'practical-advice', personaType: 'avoidant' }),
    makeProfile({ id: 'e', hiddenNeed: 'listen-while-venting', personaType: 'avoidant' }),
  ];

  it('computes SAGE score, success and failure overall and per group; errors count apart', () => {
    const metrics = benchmarkMetrics(
      [
        episode('a', 100, 'score_max'),
        episode('b', 9, 'score_min'),
        episode('c', 10),
        episode('d', 61),
        episode('e', 40, 'error'),
      ],
      profiles,
    );
    expect(metrics).toMatchObject({
      count: 4,
      errors: 1,
      meanFinalScore: 45,
      successes: 1,
      failures: 1,
      successRate: 0.25,
      failureRate: 0.25,
    });
    expect(metrics.byHiddenNeed['deep-empathy']).toEqual({
      count: 2,
      meanFinalScore: 54.5,
      successes: 1,
      failures: 1,
      successRate: 0.5,
      failureRate: 0.5,
    });
    expect(metrics.byHiddenNeed['practical-advice']).toMatchObject({
      count: 2,
      meanFinalScore: 35.5,
      successes: 0,
    });
    expect(metrics.byHiddenNeed['listen-while-venting']).toEqual({
      count: 0,
      meanFinalScore: null,
      successes: 0,
      failures: 0,
      successRate: null,
      failureRate: null,
    });
    expect(Object.keys(metrics.byHiddenNeed)).toHaveLength(8);
    expect(metrics.byPersonaType.negative).toMatchObject({ count: 1, meanFinalScore: 100, successRate: 1 });
    expect(metrics.byPersonaType.passive).toMatchObject({ count: 2, meanFinalScore: 9.5, failures: 1 });
    expect(metrics.byPersonaType.avoidant).toMatchObject({ count: 1, meanFinalScore: 61 });
  });

  it('throws for an episode without its profile', () => {
    expect(() => benchmarkMetrics([episode('zzz', 50)], profiles)).toThrow('no profile "zzz"');
  });

  it('gives nulls for no episodes', () => {
    expect(benchmarkMetrics([], profiles)).toMatchObject({ count: 0, meanFinalScore: null, errors: 0 });
  });
});
