import { ServiceCallError, CLOCK } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckpointView } from '../clients/gateway.client';
import { EvalRunnerClient } from '../clients/eval-runner.client';
import { LabellerClient } from '../clients/labeller.client';
import { orchestratorEnv } from '../env';
import { GreedyReplies } from '../serving/greedy-replies';
import { ORCHESTRATOR_ENV } from '../tokens';
import { GateService } from './gate.service';

const checkpoint = (id: string): CheckpointView => ({
  id,
  modelName: id,
  endpoints: [{ baseUrl: 'http://127.0.0.1:18000/v1' }],
  adapterPath: id === 'base' ? null : `/adapters/${id}`,
  decoding: {},
  contextTokens: 4096,
  status: 'active',
  isDefault: id === 'base',
  servedOn: [],
  createdAt: '2026-11-25T00:00:00.000Z',
});
const CANDIDATE = checkpoint('rl-20261125-aaaaaaaa');
const BASE = checkpoint('base');
const ITEMS = 6;
const PROFILES = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];

const warm = (i: number) =>
  `That sounds really hard, and it makes sense you feel this way after day ${i}. ` +
  'What has been the toughest part so far? I am here to listen for as long as you need.';
const LOOPING = "I'm not sure what to say. ".repeat(7).trim();

type Side = { answers?: (i: number) => string; rewards?: (number | null)[]; scores?: number[] };

describe('GateService', () => {
  let dir: string;
  let heldout: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gate-'));
    heldout = path.join(dir, 'heldout.jsonl');
    const rows = Array.from({ length: ITEMS }, (_, i) => ({
      prompt: [
        { role: 'system', content: 'You are Echo.' },
        { role: 'user', content: `I had a bad day, number ${i}` },
      ],
      chosen: [{ role: 'assistant', content: 'warm' }],
    }));
    await writeFile(heldout, rows.map((r) => JSON.stringify(r)).join('\n'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** The gate over fakes: each side's answers, rewards and per-profile emotion scores; defaults make them equal. */
  async function gate(
    sides: { candidate?: Side; default?: Side; evaluation?: 'failed'; labeller?: Error } = {},
    env: Record<string, string> = {},
    klToParent: number | null = 0.2,
  ) {
    const side = (id: string) => (id === CANDIDATE.id ? sides.candidate : sides.default) ?? {};
    const evals = {
      start: jest.fn(async (checkpointId: string, choice: { profiles?: string[] }) => ({
        id: `eval-${checkpointId}`,
        profileIds: choice.profiles ?? PROFILES,
      })),
      get: jest.fn(async (id: string) => {
        const scores = side(id.replace('eval-', '')).scores ?? [50, 60, 40, 55, 45, 52];
        return sides.evaluation === 'failed'
          ? { id, status: 'failed', error: 'simulator unreachable' }
          : {
              id,
              status: 'finished',
              report: { episodes: scores.map((finalScore, i) => ({ profileId: PROFILES[i], finalScore })) },
            };
      }),
    };
    const replies = {
      answer: jest.fn(async (c: CheckpointView, prompts: unknown[]) =>
        prompts.map((_, i) => (side(c.id).answers ?? warm)(i)),
      ),
    };
    const labeller = {
      composites: jest.fn(async (items: { reply: string }[]) => {
        if (sides.labeller) throw sides.labeller;
        const who = items.every((item, i) => item.reply === (sides.candidate?.answers ?? warm)(i))
          ? CANDIDATE.id
          : BASE.id;
        return side(who).rewards ?? [0.5, 0.6, 0.4, 0.7, 0.5, 0.55];
      }),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        GateService,
        { provide: EvalRunnerClient, useValue: evals },
        { provide: LabellerClient, useValue: labeller },
        { provide: GreedyReplies, useValue: replies },
        { provide: CLOCK, useValue: () => new Date('2026-11-25T01:00:00Z') },
        {
          provide: ORCHESTRATOR_ENV,
          useValue: orchestratorEnv.parse({
            GATE_PROFILES: '6',
            GATE_HELDOUT_ITEMS: '8',
            GATE_MIN_ITEMS: '5',
            ...env,
          }),
        },
      ],
    }).compile();
    const result = await moduleRef.get(GateService).run(CANDIDATE, BASE, heldout, { klToParent });
    return {
      result,
      evals,
      replies,
      labeller,
      check: (name: string) => result.checks.find((c) => c.name === name),
    };
  }

  it('plays the default on the very profiles and prompts the candidate had, and passes one as good as it', async () => {
    const { result, evals, labeller } = await gate();
    expect(evals.start).toHaveBeenNthCalledWith(1, CANDIDATE.id, { limit: 6 });
    expect(evals.start).toHaveBeenNthCalledWith(2, 'base', { profiles: PROFILES });
    // The score endpoint takes the dialogue without the system prompt, ending with the user message.
    expect(labeller.composites.mock.calls[0]?.[0]?.[0]).toEqual({
      history: [{ role: 'user', content: 'I had a bad day, number 0' }],
      reply: warm(0),
    });
    expect(result).toMatchObject({ passed: true, better: false, level: 0.95, reasons: [], notes: [] });
    expect(result.evaluations).toEqual({ candidate: `eval-${CANDIDATE.id}`, default: 'eval-base' });
    expect(result.checks.map((c) => [c.name, c.role, c.status, c.items])).toEqual([
      ['sentient', 'metric', 'passed', 6],
      ['heldout_reward', 'metric', 'passed', 6],
      ['repeated_sentences', 'guard', 'passed', 6],
      ['repeated_ngrams', 'guard', 'passed', 6],
      ['empty_or_refusal', 'guard', 'passed', 6],
      ['length_ratio', 'guard', 'passed', 6],
      ['kl_to_parent', 'guard', 'passed', 0],
    ]);
    expect(result.checks[0]).toMatchObject({ delta: 0, interval: [0, 0], significance: 'none' });
  });

  it('refuses the candidate that repeats one sentence, naming the guard, even when its reward is as high', async () => {
    const { result, check } = await gate({ candidate: { answers: () => LOOPING } });
    expect(result.passed).toBe(false);
    expect(check('heldout_reward')?.status).toBe('passed');
    expect(check('repeated_sentences')).toMatchObject({ status: 'failed', candidate: 0.8571, default: 0 });
    expect(check('repeated_ngrams')?.status).toBe('failed');
    expect(result.reasons[0]).toMatch(
      /^repeated_sentences significantly worse: candidate 0.8571 vs default 0/,
    );
  });

  it('refuses a candidate significantly lower on the sentient benchmark, with the interval', async () => {
    const { result, check } = await gate({ candidate: { scores: [40, 52, 31, 44, 37, 41] } });
    expect(check('sentient')).toMatchObject({ status: 'failed', significance: 'lower', delta: -9.5 });
    expect(check('sentient')?.interval?.[1]).toBeLessThan(0);
    expect(result.reasons).toEqual([
      expect.stringMatching(/^sentient significantly lower: .*95% CI \[-1\d\.\d+, -\d/),
    ]);
  });

  it('does not refuse a loss the items cannot tell from noise', async () => {
    const { result, check } = await gate({ candidate: { scores: [30, 70, 20, 75, 25, 62] } });
    expect(check('sentient')).toMatchObject({ status: 'passed', significance: 'none' });
    expect(result.passed).toBe(true);
  });

  it('says when the candidate is significantly better, and with GATE_REQUIRE_BETTER passes only such a one', async () => {
    const better = { candidate: { scores: [58, 66, 49, 61, 52, 60] } };
    expect((await gate(better)).result).toMatchObject({ passed: true, better: true });
    const strict = { GATE_REQUIRE_BETTER: 'true' };
    expect((await gate(better, strict)).result.passed).toBe(true);
    expect((await gate({}, strict)).result).toMatchObject({
      passed: false,
      reasons: ['sentient not significantly better than the default, as GATE_REQUIRE_BETTER asks'],
    });
  });

  it('refuses answers far shorter than the default', async () => {
    const { result, check } = await gate({ candidate: { answers: () => 'ok' } });
    expect(check('length_ratio')).toMatchObject({ status: 'failed' });
    expect(check('length_ratio')?.delta).toBeLessThan(0.2);
    expect(result.passed).toBe(false);
  });

  it('refuses empty answers and refusals', async () => {
    const { check } = await gate({ candidate: { answers: () => "I'm sorry, but I can't help with that." } });
    expect(check('empty_or_refusal')).toMatchObject({ status: 'failed', candidate: 1, default: 0 });
  });

  it('fails the gate when a check cannot run: an evaluation that failed, a labeller that refuses, too few items', async () => {
    const failed = await gate({ evaluation: 'failed' });
    expect(failed.result.passed).toBe(false);
    expect(failed.result.reasons).toContain(
      'sentient could not run: evaluation eval-rl-20261125-aaaaaaaa failed: simulator unreachable',
    );
    const refused = await gate({ labeller: new ServiceCallError('reward-labeller', 400, 'bad request') });
    expect(refused.check('heldout_reward')).toMatchObject({ status: 'not_run' });
    expect(refused.result.passed).toBe(false);
    const few = await gate({ candidate: { rewards: [0.5, null, null, null, null, 0.4] } });
    expect(few.check('heldout_reward')).toMatchObject({
      status: 'not_run',
      detail: '2 items measured on both sides, at least 5 needed',
    });
    expect(few.result.passed).toBe(false);
  });

  it('leaves a service that is away to the driver to retry', async () => {
    await expect(
      gate({ labeller: new ServiceCallError('reward-labeller', 503, 'unavailable') }),
    ).rejects.toThrow('unavailable');
  });

  it('passes over checks an operator turned off, and says so', async () => {
    const { result } = await gate(
      { candidate: { answers: () => 'ok' } },
      { GATE_PROFILES: '0', GATE_CHECKS_OFF: 'length_ratio' },
    );
    expect(result).toMatchObject({
      passed: true,
      evaluations: null,
      notes: ['sentient off: GATE_PROFILES=0', 'length_ratio off: GATE_CHECKS_OFF'],
    });
    expect(result.checks.filter((c) => c.status === 'off').map((c) => c.name)).toEqual([
      'sentient',
      'length_ratio',
    ]);
  });

  it('does not play or score what an operator turned off', async () => {
    const { result, evals, labeller } = await gate({}, { GATE_CHECKS_OFF: 'sentient,heldout_reward' });
    expect(evals.start).not.toHaveBeenCalled();
    expect(labeller.composites).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      passed: true,
      notes: ['sentient off: GATE_CHECKS_OFF', 'heldout_reward off: GATE_CHECKS_OFF'],
    });
  });

  it('refuses a candidate that drifted from its parent beyond the trust region, and one whose drift is unknown', async () => {
    const far = await gate({}, { RL_MAX_KL: '0.5' }, 0.75);
    expect(far.check('kl_to_parent')).toMatchObject({ status: 'failed', candidate: 0.75, default: 0 });
    expect(far.result.reasons).toEqual([
      'kl_to_parent 0.75 nats per token, over the trust region RL_MAX_KL 0.5',
    ]);
    const unknown = await gate({}, {}, null);
    expect(unknown.check('kl_to_parent')).toMatchObject({ status: 'not_run' });
    expect(unknown.result.passed).toBe(false);
    const off = await gate({}, { GATE_CHECKS_OFF: 'kl_to_parent' }, null);
    expect(off.result).toMatchObject({ passed: true, notes: ['kl_to_parent off: GATE_CHECKS_OFF'] });
  });

  it('refuses a check name it does not know', () => {
    expect(() => orchestratorEnv.parse({ GATE_CHECKS_OFF: 'sentient,vibes' })).toThrow();
  });
});
