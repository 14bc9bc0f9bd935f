import { isExperimentMetric } from '@echoloop/experiments';
import type { RewardLabelEntity, RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import { corrections, experimentValues } from './experiment-projection.repository';

const turn = (signals: TurnSignals) =>
  ({
    turnId: 't',
    signals,
    turn: { timings: { ttftMs: 12, totalMs: 40 }, safety: { flagged: false } },
  }) as unknown as RewardTurnEntity;

describe('experiment values of a turn', () => {
  it.each([
    [{ thumbs: 1 }, 1],
    [{ thumbs: -1 }, 0],
    [{ stars: 1 }, 0],
    [{ stars: 3 }, 0],
    [{ stars: 4 }, 1],
    [{ stars: 5, thumbs: -1 }, 1],
    [{}, 0],
  ] as [TurnSignals, number][])(
    'counts %j as thumbs_up = %d (one star is never a thumbs-up)',
    (signals, liked) => {
      expect(experimentValues(turn(signals), [], null)['thumbs_up']).toBe(liked);
    },
  );
});

describe('metric names', () => {
  it('are all in the one registry the gateway reports from', () => {
    const labels = ['empathy', 'humanlike', 'live_emotion', 'implicit'].map((component) => ({
      component,
      status: 'labelled',
      value: 0.5,
      details: { delta: 3 },
    })) as unknown as RewardLabelEntity[];
    const names = Object.keys(experimentValues(turn({ thumbs: 1, regenerated: true }), labels, 0.4));
    expect(names.filter((name) => !isExperimentMetric(name))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['composite', 'live_emotion_delta', 'thumbs_up', 'ttft_ms']),
    );
  });
});

describe('corrections of a revised turn', () => {
  it('moves only the metrics whose value changed, by the difference, without a new observation', () => {
    expect(
      corrections(
        { thumbs_up: 0, composite: 0.2, ttft_ms: 12 },
        { thumbs_up: 1, composite: 0.5, ttft_ms: 12 },
      ),
    ).toEqual({
      thumbs_up: { kind: 'add', count: 0, total: 1 },
      composite: { kind: 'add', count: 0, total: expect.closeTo(0.3, 10) },
    });
  });

  it('adds or removes an observation for a metric that appears or disappears', () => {
    expect(corrections({ composite: 2 }, { live_emotion_delta: 3 })).toEqual({
      composite: { kind: 'add', count: -1, total: -2 },
      live_emotion_delta: { kind: 'add', count: 1, total: 3 },
    });
  });

  it('is empty when nothing changed, so a repeated rating moves nothing', () => {
    expect(corrections({ thumbs_up: 1 }, { thumbs_up: 1 })).toEqual({});
  });
});
