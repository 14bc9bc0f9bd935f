import { DEFAULT_REWARD_CONFIG, parseRewardConfig } from './config';

describe('parseRewardConfig', () => {
  it('fills every default from a version alone', () => {
    expect(DEFAULT_REWARD_CONFIG).toEqual({
      version: 'composite-v1',
      empathy: {
        comparative: { worse: 0, tie: 0.5, better: 1 },
        absolute: { '1': 0, '2': 0.25, '3': 0.5, '4': 0.75, '5': 1 },
      },
      humanlike: { labels: { robotic: 0, mixed: 0.5, humanlike: 1 } },
      liveEmotion: { startScore: 40, maxScore: 100, maxDelta: 10, leftValue: -0.5 },
      weights: { empathy: 0.35, humanlike: 0.25, live_emotion: 0.3, implicit: 0.1 },
      sampling: { empathy: 1, humanlike: 1, live_emotion: 1, implicit: 1 },
    });
  });

  it('keeps what is given and defaults the rest', () => {
    const config = parseRewardConfig({
      version: 'composite-v2',
      empathy: { comparative: { worse: -1, tie: 0, better: 1 } },
      liveEmotion: { startScore: 30 },
      sampling: { humanlike: 0.3 },
    });
    expect(config.empathy.comparative).toEqual({ worse: -1, tie: 0, better: 1 });
    expect(config.empathy.absolute['5']).toBe(1);
    expect(config.liveEmotion).toEqual({ startScore: 30, maxScore: 100, maxDelta: 10, leftValue: -0.5 });
    expect(config.sampling).toEqual({ empathy: 1, humanlike: 0.3, live_emotion: 1, implicit: 1 });
  });

  it('does not share default objects between configs', () => {
    const a = parseRewardConfig({ version: 'a' });
    a.weights.empathy = 9;
    a.empathy.comparative['tie'] = 9;
    expect(parseRewardConfig({ version: 'b' }).weights.empathy).toBe(0.35);
    expect(parseRewardConfig({ version: 'b' }).empathy.comparative['tie']).toBe(0.5);
  });

  const allWeights = { empathy: 1, humanlike: 1, live_emotion: 1, implicit: 1 };
  it.each([
    ['an empty version', { version: '' }, /version/],
    ['a negative weight', { weights: { ...allWeights, implicit: -0.1 } }, /weights/],
    [
      'all-zero weights',
      { weights: { empathy: 0, humanlike: 0, live_emotion: 0, implicit: 0 } },
      /not all be zero/,
    ],
    ['a missing weight', { weights: { empathy: 1 } }, /weights/],
    ['an unknown component', { weights: { ...allWeights, fun: 1 } }, /fun/],
    ['an empty label map', { humanlike: { labels: {} } }, /at least one label/],
    ['a non-finite level', { empathy: { comparative: { better: Number.POSITIVE_INFINITY } } }, /comparative/],
    ['a NaN level', { empathy: { absolute: { '1': Number.NaN } } }, /absolute/],
    ['an unparsable label', { humanlike: { labels: { 'very human': 1 } } }, /labels/],
    ['labels differing only by case', { humanlike: { labels: { Robotic: 0, robotic: 1 } } }, /case/],
    ['a sampling rate above 1', { sampling: { empathy: 1.5 } }, /sampling/],
    ['a zero maxDelta', { liveEmotion: { maxDelta: 0 } }, /maxDelta/],
    ['a start above the max', { liveEmotion: { startScore: 120 } }, /startScore/],
    ['a leftValue below -1', { liveEmotion: { leftValue: -2 } }, /leftValue/],
    ['an unknown key', { wieghts: allWeights }, /wieghts/],
  ])('rejects %s', (_name, change, message) => {
    expect(() => parseRewardConfig({ version: 'v', ...change })).toThrow(message);
  });

  it('rejects a config without a version', () => {
    expect(() => parseRewardConfig({})).toThrow(/invalid reward config/);
  });
});
