import { DEFAULT_REWARD_CONFIG as config } from './config';
import { humanlikeJudgeMessages, humanlikeLabels, humanlikeReward } from './humanlike';

describe('humanlikeJudgeMessages', () => {
  it('judges the reply in the context of the history', () => {
    const [system, user] = humanlikeJudgeMessages({
      history: [{ role: 'user', content: 'My cat died today.' }],
      reply: 'Oh no. How old was she?',
    });
    expect(system?.content).toMatch(/in the context of the dialogue history/);
    expect(system?.content).toMatch(/robotic even if it sounds natural/);
    expect(system?.content).toMatch(/Verdict: <label>/);
    expect(user?.content).toContain('<dialogue>\nUser: My cat died today.\n</dialogue>');
    expect(user?.content).toContain('<reply>\nOh no. How old was she?\n</reply>');
  });

  it('throws without a user message in the history', () => {
    expect(() => humanlikeJudgeMessages({ history: [], reply: 'Hi!' })).toThrow(/user message/);
    expect(() =>
      humanlikeJudgeMessages({
        history: [
          { role: 'system', content: 'You are Mia.' },
          { role: 'assistant', content: 'Hello!' },
        ],
        reply: 'Hi!',
      }),
    ).toThrow(/user message/);
  });
});

describe('humanlikeReward', () => {
  it('maps the labels to the configured levels', () => {
    expect(humanlikeLabels(config)).toEqual(['robotic', 'mixed', 'humanlike']);
    expect(humanlikeReward('robotic', config)).toBe(0);
    expect(humanlikeReward('mixed', config)).toBe(0.5);
    expect(humanlikeReward('humanlike', config)).toBe(1);
    expect(() => humanlikeReward('human', config)).toThrow(/unknown/);
  });
});
