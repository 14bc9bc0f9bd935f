import type { RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import { corrections, experimentValues } from './experiment-projection';

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
    expect(corrections({ a: 2 }, { b: 3 })).toEqual({
      a: { kind: 'add', count: -1, total: -2 },
      b: { kind: 'add', count: 1, total: 3 },
    });
  });

  it('is empty when nothing changed, so a repeated rating moves nothing', () => {
    expect(corrections({ thumbs_up: 1 }, { thumbs_up: 1 })).toEqual({});
  });
});
