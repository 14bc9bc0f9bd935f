import { emotionAnalyserMessages, parseEmotionDelta } from './emotion-analyser';

describe('emotionAnalyserMessages', () => {
  it('gives the dialogue, the reply, the next user message and the score', () => {
    const [system, user] = emotionAnalyserMessages({
      history: [{ role: 'user', content: 'Work was awful.' }],
      reply: 'What happened?',
      nextUserMessage: 'My boss yelled at me in front of everyone.',
      currentScore: 40,
    });
    expect(system?.content).toMatch(/Change: <signed integer from -10 to \+10>/);
    expect(user?.content).toContain('Current emotion score: 40 / 100');
    expect(user?.content).toContain('<dialogue>\nUser: Work was awful.\n</dialogue>');
    expect(user?.content).toContain('<companion_reply>\nWhat happened?\n</companion_reply>');
    expect(user?.content).toContain(
      '<next_user_message>\nMy boss yelled at me in front of everyone.\n</next_user_message>',
    );
  });

  it('states a configured maxDelta', () => {
    const [system] = emotionAnalyserMessages({
      history: [],
      reply: 'Hi',
      nextUserMessage: 'Hi',
      currentScore: 30,
      maxDelta: 5,
    });
    expect(system?.content).toMatch(/from -5 to \+5/);
  });
});

describe('parseEmotionDelta', () => {
  it.each([
    ['Change: +3', 3],
    ['Change: -6', -6],
    ['Change: 4', 4],
    ['change: 2 (a little warmer)', 2],
    ['**Change:** -2', -2],
    ['**Change**: **+5**', 5],
    ['Change：-4', -4],
    ['Change: − 3', -3],
    ['Change: -0', 0],
  ])('reads %j', (line, delta) => {
    const parsed = parseEmotionDelta(`She opens up.\n${line}`);
    expect(parsed).toEqual({ ok: true, value: { reasoning: 'She opens up.', delta, rawDelta: delta } });
    expect(Object.is(parsed.ok && parsed.value.delta, -0)).toBe(false);
  });

  it('clamps to ±maxDelta and keeps the raw value', () => {
    expect(parseEmotionDelta('Change: +25')).toMatchObject({ ok: true, value: { delta: 10, rawDelta: 25 } });
    expect(parseEmotionDelta('Change: -40')).toMatchObject({
      ok: true,
      value: { delta: -10, rawDelta: -40 },
    });
    expect(parseEmotionDelta('Change: 10')).toMatchObject({ ok: true, value: { delta: 10, rawDelta: 10 } });
    expect(parseEmotionDelta('Change: -8', 5)).toMatchObject({
      ok: true,
      value: { delta: -5, rawDelta: -8 },
    });
  });

  it('takes the last Change line and ignores <think>', () => {
    const text = '<think>Change: -9</think>Change: +1 at first\nBut then she smiles.\nChange: +4';
    expect(parseEmotionDelta(text)).toEqual({
      ok: true,
      value: { reasoning: 'Change: +1 at first\nBut then she smiles.', delta: 4, rawDelta: 4 },
    });
  });

  it('reports a missing change', () => {
    expect(parseEmotionDelta('She seems happier.')).toMatchObject({ ok: false, problem: 'no_delta' });
    expect(parseEmotionDelta('Change: a bit better')).toMatchObject({ ok: false, problem: 'no_delta' });
    expect(parseEmotionDelta('Change: +3\nChange: unclear')).toMatchObject({
      ok: false,
      problem: 'no_delta',
    });
  });
});
