import type { ChatMessage } from '@echoloop/vocabulary';
import { type EpisodeDeps, runEpisode } from './episode';
import { makeProfile } from './fixtures.spec-helper';
import { HIDDEN_NEED_DESCRIPTIONS } from './profile';

const analyserAnswer = (change: number) =>
  JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
const actorAnswer = (response: string, goodbye = false) =>
  JSON.stringify({ thinking: 't', draft: response, response, goodbye });

/** Fakes: the analyser gives `changes` in order (then 0); the actor says "user N", saying goodbye at `goodbyeAt`. */
function fakes(changes: number[], goodbyeAt?: number) {
  let analyserCalls = 0;
  let actorCalls = 0;
  const policy = jest.fn(async (history: ChatMessage[]) => `reply ${history.length}`);
  const analyser = jest.fn(async (_messages: ChatMessage[]) => analyserAnswer(changes[analyserCalls++] ?? 0));
  const actor = jest.fn(async (_messages: ChatMessage[]) => {
    actorCalls++;
    return actorAnswer(`user ${actorCalls}`, actorCalls === goodbyeAt);
  });
  return { policy, analyser, actor } satisfies EpisodeDeps;
}

describe('runEpisode', () => {
  it('never shows the policy the profile: only the chat history', async () => {
    const profile = makeProfile();
    const deps = fakes([5, 5], 2);
    const result = await runEpisode(profile, deps);
    expect(deps.policy.mock.calls.map(([history]) => history)).toEqual([
      [{ role: 'user', content: 'ugh. work again.' }],
      [
        { role: 'user', content: 'ugh. work again.' },
        { role: 'assistant', content: 'reply 1' },
        { role: 'user', content: 'user 1' },
      ],
    ]);
    const seen = JSON.stringify(deps.policy.mock.calls);
    for (const secret of [
      profile.persona.name,
      profile.scene.background,
      profile.scene.conflict,
      profile.scene.raisesEmotion,
      HIDDEN_NEED_DESCRIPTIONS[profile.hiddenNeed],
      profile.hiddenNeed,
      profile.traits[0] ?? '',
    ]) {
      expect(seen).not.toContain(secret);
    }
    // The simulator does see them.
    expect(JSON.stringify(deps.analyser.mock.calls[0])).toContain(
      HIDDEN_NEED_DESCRIPTIONS[profile.hiddenNeed],
    );
    expect(result.endReason).toBe('goodbye');
  });

  it('prepends only the given system prompt to the policy history', async () => {
    const deps = fakes([], 1);
    await runEpisode(makeProfile(), deps, { policySystemPrompt: 'Be kind.' });
    expect(deps.policy.mock.calls[0]?.[0]).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'ugh. work again.' },
    ]);
  });

  it('strips think text before storing the reply and sending it to the simulator', async () => {
    const deps = fakes([2], 1);
    deps.policy.mockResolvedValueOnce('<think>she seems upset, be careful</think>\nThat sounds exhausting.');
    const result = await runEpisode(makeProfile(), deps);
    expect(result.trace[0]?.policyReply).toBe('That sounds exhausting.');
    expect(result.trace[0]?.policyRaw).toContain('<think>');
    expect(result.history[1]).toEqual({ role: 'assistant', content: 'That sounds exhausting.' });
    const simulatorSaw = JSON.stringify([deps.analyser.mock.calls, deps.actor.mock.calls]);
    expect(simulatorSaw).toContain('That sounds exhausting.');
    expect(simulatorSaw).not.toContain('be careful');
  });

  it('shows the analyser the score number and the actor only the bucket label', async () => {
    const deps = fakes([10], 1);
    await runEpisode(makeProfile(), deps);
    const analyserText = deps.analyser.mock.calls[0]?.[0].map((message) => message.content).join('\n') ?? '';
    const actorText = deps.actor.mock.calls[0]?.[0].map((message) => message.content).join('\n') ?? '';
    expect(analyserText).toContain('Current mood score: 40 / 100');
    expect(analyserText).toContain('"role": "you"');
    expect(analyserText).toContain('"role": "companion"');
    expect(actorText).toContain('Your mood: B.');
    expect(actorText).not.toMatch(/\b50\b/);
  });

  it('ends on the goodbye flag, not on the word', async () => {
    const deps = fakes([0, 0, 0]);
    deps.actor.mockResolvedValueOnce(actorAnswer('ok goodbye, bye bye, 再见', false));
    deps.actor.mockResolvedValueOnce(actorAnswer('fine', true));
    const result = await runEpisode(makeProfile(), deps);
    expect(result.turns).toBe(2);
    expect(result.endReason).toBe('goodbye');
    expect(result.trace.map((turn) => turn.goodbye)).toEqual([false, true]);
  });

  it('ends at 100 with reward 1', async () => {
    const result = await runEpisode(makeProfile(), fakes([10, 10, 10, 10, 10, 10]));
    expect(result.trace.map((turn) => turn.score)).toEqual([50, 60, 70, 80, 90, 100]);
    expect(result.trace.map((turn) => turn.bucket)).toEqual(['B', 'B', 'A', 'A', 'A', 'S']);
    expect(result).toMatchObject({ endReason: 'score_max', finalScore: 100, reward: 1, turns: 6 });
  });

  it('ends below 10 (at 9) with reward 0.09, clamping each delta to -10', async () => {
    const result = await runEpisode(makeProfile(), fakes([-10, -25, -1]));
    expect(result.trace.slice(0, 3).map((turn) => [turn.delta, turn.score])).toEqual([
      [-10, 30],
      [-10, 20],
      [-1, 19],
    ]);
    const low = await runEpisode(makeProfile(), fakes([-10, -10, -10, -1]));
    expect(low).toMatchObject({ endReason: 'score_min', finalScore: 9, turns: 4 });
    expect(low.reward).toBeCloseTo(0.09);
  });

  it('ends after exactly 10 policy turns', async () => {
    const deps = fakes([]);
    const result = await runEpisode(makeProfile(), deps);
    expect(deps.policy).toHaveBeenCalledTimes(10);
    expect(result).toMatchObject({ endReason: 'max_turns', turns: 10, finalScore: 40, reward: 0.4 });
    expect(result.history).toHaveLength(21);
  });

  it('honours startScore and maxPolicyTurns', async () => {
    const deps = fakes([1]);
    const result = await runEpisode(makeProfile(), deps, { startScore: 30, maxPolicyTurns: 3 });
    expect(result).toMatchObject({ endReason: 'max_turns', turns: 3, finalScore: 31 });
    expect(result.trace[0]?.bucket).toBe('C');
  });

  it('retries an unparseable analyser answer once', async () => {
    const deps = fakes([4], 1);
    deps.analyser.mockResolvedValueOnce('Change: +4');
    const result = await runEpisode(makeProfile(), deps);
    expect(deps.analyser).toHaveBeenCalledTimes(2);
    expect(result).toMatchObject({ endReason: 'goodbye', finalScore: 44 });
  });

  it.each([
    ['non-JSON', 'Content: ... Change: +3'],
    ['missing change', JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f' })],
    ['float change', analyserAnswer(2.5)],
  ])('ends as error after a second bad analyser answer (%s)', async (_name, bad) => {
    const deps = fakes([3, 3], 5);
    deps.analyser
      .mockResolvedValueOnce(analyserAnswer(3))
      .mockResolvedValueOnce(bad)
      .mockResolvedValueOnce(bad);
    const result = await runEpisode(makeProfile(), deps);
    expect(deps.analyser).toHaveBeenCalledTimes(3);
    expect(deps.actor).toHaveBeenCalledTimes(1);
    expect(result).toMatchObject({ endReason: 'error', turns: 1, finalScore: 43 });
    expect(result.error).toMatchObject({ turn: 2, call: 'analyser' });
    expect(result.error?.attempts).toHaveLength(2);
    expect(result.error?.attempts[0]?.raw).toBe(bad);
  });

  it('ends as error when the actor twice gives a non-boolean goodbye', async () => {
    const deps = fakes([1]);
    const bad = JSON.stringify({ thinking: 't', draft: 'd', response: 'bye', goodbye: 'yes' });
    deps.actor.mockResolvedValueOnce(bad).mockResolvedValueOnce(bad);
    const result = await runEpisode(makeProfile(), deps);
    expect(result.endReason).toBe('error');
    expect(result.error).toMatchObject({ turn: 1, call: 'actor' });
    expect(result.error?.attempts.map((attempt) => attempt.problem)).toEqual(['bad_shape', 'bad_shape']);
  });

  it('does not retry when parseRetries is 0', async () => {
    const deps = fakes([1]);
    deps.analyser.mockResolvedValueOnce('nope');
    const result = await runEpisode(makeProfile(), deps, { parseRetries: 0 });
    expect(deps.analyser).toHaveBeenCalledTimes(1);
    expect(result.endReason).toBe('error');
  });

  it('lets the actor write the opener when the profile has no fixed one', async () => {
    const deps = fakes([0], 2);
    const result = await runEpisode(makeProfile({ pool: 'train', firstMessage: undefined }), deps);
    expect(result.opener).toBe('user 1');
    expect(deps.policy.mock.calls[0]?.[0]).toEqual([{ role: 'user', content: 'user 1' }]);
    expect(deps.actor.mock.calls[0]?.[0][0]?.content).toContain('first message');
  });

  it('lets transport errors propagate', async () => {
    const deps = fakes([]);
    deps.policy.mockRejectedValueOnce(new Error('socket hang up'));
    await expect(runEpisode(makeProfile(), deps)).rejects.toThrow('socket hang up');
  });
});
