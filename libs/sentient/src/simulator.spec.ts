import type { ChatMessage } from '@echoloop/vocabulary';
import { runEpisode } from './episode';
import { epmMetrics } from './epm-metrics';
import { makeProfile } from './fixtures.spec-helper';
import { openSession, respond, type SimulatorDeps } from './simulator';

const IDS = ['C1', 'C2', 'C3', 'A1', 'A2', 'A3', 'P1', 'P2', 'P3'];
const iedrAnswer = (level: number) =>
  JSON.stringify(Object.fromEntries(IDS.map((id) => [id, { level, evidence: `about ${id}` }])));
const axis = (prog: number, neg: number) => ({ prog, progEvidence: 'p', neg, negEvidence: 'n' });
const turnAnswer = (prog: number, neg: number) =>
  JSON.stringify({ C: axis(prog, neg), A: axis(prog, neg), P: axis(prog, neg) });
const analyserAnswer = (change: number) =>
  JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
const actorAnswer = (response: string, goodbye = false) =>
  JSON.stringify({ thinking: 't', draft: response, response, goodbye });

/** A judge that rates IEDR levels all at `level` and every reply with the same prog/neg. */
function judged(rating: { prog: number; neg: number }, level = 1, change = 0) {
  let actorCalls = 0;
  const judge = jest.fn(async (_messages: ChatMessage[], rubric: 'iedr' | 'turn') =>
    rubric === 'iedr' ? iedrAnswer(level) : turnAnswer(rating.prog, rating.neg),
  );
  return {
    policy: jest.fn(async (history: ChatMessage[]) => `reply ${history.length}`),
    analyser: jest.fn(async (_messages: ChatMessage[]) => analyserAnswer(change)),
    actor: jest.fn(async (_messages: ChatMessage[]) => actorAnswer(`user ${++actorCalls}`)),
    judge,
  };
}

// IEDR all at level 1: C = −2·(1 + 1 + 1.5) = −7, A = P = −2·(1 + 2 + 1.5) = −9; ‖P₀‖ = √211.
const R0 = Math.sqrt(211);

describe('EPM C/A/P run', () => {
  it('rates P₀ with the judge, then judges each reply against the dialogue before it', async () => {
    const deps = judged({ prog: 1, neg: 0 });
    const result = await runEpisode(makeProfile(), deps, { maxPolicyTurns: 2 });
    expect(result.epm?.p0Source).toBe('judge');
    expect(result.epm?.state.p0).toEqual({ C: -7, A: -9, P: -9 });
    expect(deps.judge).toHaveBeenCalledTimes(3);
    const secondTurn = deps.judge.mock.calls[2]?.[0].map((m) => m.content).join('\n') ?? '';
    expect(secondTurn).toContain('Person: ugh. work again.');
    expect(secondTurn).toContain('Companion: reply 1');
    expect(secondTurn).toContain('<companion_reply>\nreply 3');
    // Prog 1 on every axis: v = (1, 1, 1) and ΔE = v · v*₀ = 25/√211.
    expect(result.trace[0]?.epm?.step.v).toEqual({ C: 1, A: 1, P: 1 });
    expect(result.trace[1]?.epm?.step.energy).toBeCloseTo(50 / R0, 10);
    // SAGE mode keeps SAGE's stop rule: 2 turns, not an EPM verdict.
    expect(result).toMatchObject({ mode: 'sage', endReason: 'max_turns', turns: 2 });
  });

  it("takes P₀ from the profile's precomputed IEDR levels without asking the judge", async () => {
    const deps = judged({ prog: 0, neg: 0 });
    const profile = makeProfile({ empathy: { dominantAxis: 'affective', p0: [0, 0, 0, 3, 3, 3, 0, 0, 0] } });
    const result = await runEpisode(profile, deps, { maxPolicyTurns: 1 });
    expect(result.epm).toMatchObject({ p0Source: 'profile', state: { p0: { C: 0, A: -27, P: 0 } } });
    expect(deps.judge).toHaveBeenCalledTimes(1);
  });

  it("ends in 'epm' mode on success, judged no earlier than turn 12", async () => {
    const deps = judged({ prog: 2, neg: 0 }, 1, 10);
    const result = await runEpisode(makeProfile(), deps, { mode: 'epm' });
    // v = (3, 3, 3) every turn: by turn 12 the energy is 12 · 75/√211 ≥ ‖P₀‖, long after the deficit closed.
    expect(result).toMatchObject({ mode: 'epm', endReason: 'epm_success', turns: 12 });
    expect(result.epm?.verdict).toBe('success');
    expect(result.epm?.state.position).toEqual({ C: 29, A: 27, P: 27 });
    // The emotion score reached 100 at turn 6 without ending the EPM run.
    expect(result.trace[5]?.score).toBe(100);
  });

  it("keeps the user in 'epm' mode until the verdict: the actor never gets the leaving buckets", async () => {
    const deps = judged({ prog: 2, neg: 0 }, 1, 10);
    // An actor that does what the S bucket says: thank and say goodbye.
    deps.actor.mockImplementation(async (messages: ChatMessage[]) =>
      actorAnswer(
        'thanks, bye',
        messages.some((m) => m.content.includes('Your mood: S.')),
      ),
    );
    const result = await runEpisode(makeProfile(), deps, { mode: 'epm' });
    expect(result).toMatchObject({ endReason: 'epm_success', turns: 12 });
    const sage = await runEpisode(makeProfile(), deps);
    expect(sage).toMatchObject({ endReason: 'goodbye', turns: 6 });
  });

  it("keeps the first verdict when SAGE's stop rule lets the run go on", async () => {
    const deps = judged({ prog: 0, neg: -2 });
    deps.judge.mockImplementation(async (_m, rubric) =>
      rubric === 'iedr'
        ? iedrAnswer(1)
        : deps.judge.mock.calls.length <= 6
          ? turnAnswer(0, -2)
          : turnAnswer(2, 0),
    );
    const result = await runEpisode(makeProfile(), deps);
    expect(result.turns).toBe(10);
    expect(result.epm?.verdict).toBe('failure');
  });

  it("ends in 'epm' mode on collapse: five replies in a row moving away from the need", async () => {
    const result = await runEpisode(makeProfile(), judged({ prog: 0, neg: -2 }), { mode: 'epm' });
    expect(result).toMatchObject({ endReason: 'epm_failure', turns: 5 });
    expect(result.epm?.failure).toMatchObject({ failed: true, collapse: true });
    expect(result.trace.every((t) => (t.epm?.step.deltaE ?? 0) < 0)).toBe(true);
  });

  it("runs 'epm' mode to 45 turns when replies neither help nor harm", async () => {
    const result = await runEpisode(makeProfile(), judged({ prog: 0, neg: 0 }), { mode: 'epm' });
    // Stagnation alone is not failure: it also needs regression.
    expect(result).toMatchObject({ endReason: 'max_turns', turns: 45 });
    expect(result.epm).toMatchObject({
      verdict: 'undecided',
      failure: { stagnation: true, regression: false },
    });
  });

  it("refuses 'epm' mode without a judge", async () => {
    const { judge: _judge, ...deps } = judged({ prog: 0, neg: 0 });
    await expect(runEpisode(makeProfile(), deps, { mode: 'epm' })).rejects.toThrow('needs a judge');
  });

  it('ends as error when the model server rejects a simulator request, but lets outages propagate', async () => {
    const rejected = Object.assign(new Error('400 maximum context length exceeded'), {
      retryable: false,
      status: 400,
    });
    const deps = judged({ prog: 0, neg: 0 });
    deps.analyser.mockRejectedValueOnce(rejected);
    const result = await runEpisode(makeProfile(), deps);
    expect(result).toMatchObject({ endReason: 'error', error: { turn: 1, call: 'analyser' } });
    expect(result.error?.attempts).toEqual([
      { raw: '', problem: 'rejected', detail: '400 maximum context length exceeded' },
    ]);
    // The turn that failed leaves no trace: the score is the one before it.
    expect(result.finalScore).toBe(40);
    expect(result.history).toEqual([{ role: 'user', content: 'ugh. work again.' }]);
    const down = Object.assign(new Error('connection refused'), { retryable: true });
    deps.actor.mockRejectedValueOnce(down);
    await expect(runEpisode(makeProfile(), deps)).rejects.toThrow('connection refused');
    const wrongModel = Object.assign(new Error('404 model not found'), { retryable: false, status: 404 });
    deps.analyser.mockRejectedValueOnce(wrongModel);
    await expect(runEpisode(makeProfile(), deps)).rejects.toThrow('404 model not found');
  });

  it('ends as error when the judge twice answers out of range', async () => {
    const deps = judged({ prog: 0, neg: 0 });
    deps.judge.mockResolvedValueOnce(iedrAnswer(1)).mockResolvedValue(turnAnswer(3, 0));
    const result = await runEpisode(makeProfile(), deps);
    expect(result.endReason).toBe('error');
    expect(result.error).toMatchObject({ turn: 1, call: 'judge' });
    expect(deps.analyser).not.toHaveBeenCalled();
  });
});

describe('simulator sessions', () => {
  const deps = (): SimulatorDeps => {
    const fake = judged({ prog: 1, neg: 0 }, 1, 10);
    return { analyser: fake.analyser, actor: fake.actor };
  };

  it('are plain data: a session stored as JSON between turns resumes exactly where it was', async () => {
    const profile = makeProfile();
    const direct = await respond(await openSession(profile, deps()), profile, 'hi', deps());
    const stored = JSON.parse(JSON.stringify(await openSession(profile, deps())));
    const resumed = await respond(stored, profile, 'hi', deps());
    expect(resumed).toEqual(direct);
    expect(resumed.state).toEqual({ score: 50, bucket: 'B' });
  });

  it('leave the given session untouched, and refuse a reply after the end', async () => {
    const profile = makeProfile();
    const opened = await openSession(profile, deps(), { maxPolicyTurns: 1 });
    const snapshot = JSON.stringify(opened);
    const failing = { ...deps(), analyser: async () => Promise.reject(new Error('socket hang up')) };
    await expect(respond(opened, profile, 'hi', failing)).rejects.toThrow('socket hang up');
    expect(JSON.stringify(opened)).toBe(snapshot);
    const ended = await respond(opened, profile, 'hi', deps());
    expect(ended.ended).toBe('max_turns');
    await expect(respond(ended, profile, 'again', deps())).rejects.toThrow('has ended (max_turns)');
    await expect(respond(opened, makeProfile({ id: 'other' }), 'hi', deps())).rejects.toThrow(
      'belongs to profile p-1',
    );
  });
});

describe('epmMetrics', () => {
  it('counts verdicts and averages energy and distance over the episodes with a vector', async () => {
    const success = await runEpisode(makeProfile(), judged({ prog: 2, neg: 0 }), { mode: 'epm' });
    const failure = await runEpisode(makeProfile(), judged({ prog: 0, neg: -2 }), { mode: 'epm' });
    const plain = await runEpisode(makeProfile(), { ...judged({ prog: 0, neg: 0 }), judge: undefined });
    const metrics = epmMetrics([success, failure, plain]);
    expect(metrics).toMatchObject({ count: 2, successes: 1, failures: 1, undecided: 0, successRate: 0.5 });
    expect(metrics.meanInitialDeficit).toBeCloseTo(R0, 10);
    // Success: 12 steps of 75/√211; collapse: 5 steps of (−4, −5, −5)·v*₀ = −(28 + 45 + 45)/√211.
    expect(metrics.meanEnergyRatio).toBeCloseTo((12 * 75 - 5 * 118) / 211 / 2, 10);
  });
});
