import { DEFAULT_REWARD_CONFIG as config, parseRewardConfig } from './config';
import { applyEmotionDelta, emotionBucket, leftReward, liveEmotionReward } from './emotion-score';

describe('applyEmotionDelta', () => {
  it('adds the delta and caps at maxScore', () => {
    expect(applyEmotionDelta(40, 5, config)).toBe(45);
    expect(applyEmotionDelta(95, 10, config)).toBe(100);
    expect(applyEmotionDelta(100, 3, config)).toBe(100);
  });

  it('has no floor', () => {
    expect(applyEmotionDelta(5, -10, config)).toBe(-5);
  });
});

describe('emotionBucket', () => {
  it.each([
    [120, 'S'],
    [100, 'S'],
    [99, 'A'],
    [70, 'A'],
    [69, 'B'],
    [40, 'B'],
    [39, 'C'],
    [10, 'C'],
    [9, 'F'],
    [-15, 'F'],
  ])('%d is %s', (score, bucket) => {
    expect(emotionBucket(score)).toBe(bucket);
  });
});

describe('liveEmotionReward and leftReward', () => {
  it('scales the delta into [-1, 1]', () => {
    expect(liveEmotionReward(10, config)).toBe(1);
    expect(liveEmotionReward(-5, config)).toBe(-0.5);
    expect(liveEmotionReward(0, config)).toBe(0);
    expect(liveEmotionReward(30, config)).toBe(1);
    expect(liveEmotionReward(-30, config)).toBe(-1);
  });

  it('records the configured value when the user leaves', () => {
    expect(leftReward(config)).toBe(-0.5);
    expect(leftReward(parseRewardConfig({ version: 'v', liveEmotion: { leftValue: -1 } }))).toBe(-1);
  });
});
