import { CLOCK } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CheckpointView } from '../clients/gateway.client';
import { EvalRunnerClient } from '../clients/eval-runner.client';
import { LabellerClient } from '../clients/labeller.client';
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
});
const CANDIDATE = checkpoint('rl-20261125-aaaaaaaa');
const BASE = checkpoint('base');

const prompt = (text: string) => ({
  prompt: [
    { role: 'system', content: 'You are Echo.' },
    { role: 'user', content: text },
  ],
  chosen: [{ role: 'assistant', content: 'warm' }],
});

describe('GateService', () => {
  let dir: string;
  let heldout: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gate-'));
    heldout = path.join(dir, 'heldout.jsonl');
    await writeFile(
      heldout,
      [prompt('I failed'), prompt('I am lonely'), prompt('I lost my job')]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function gate(options: {
    scores: Record<string, number | null>;
    composites: Record<string, (number | null)[]>;
    env?: Record<string, number>;
  }) {
    const evals = {
      start: jest.fn(async (checkpointId: string, choice: { profiles?: string[] }) => ({
        id: `eval-${checkpointId}`,
        profileIds: choice.profiles ?? ['p1', 'p2'],
      })),
      get: jest.fn(async (id: string) => ({
        id,
        status: 'finished',
        metrics: { meanFinalScore: options.scores[id.replace('eval-', '')] ?? null },
      })),
    };
    const replies = {
      answer: jest.fn(async (c: CheckpointView, prompts: unknown[]) => prompts.map(() => `reply of ${c.id}`)),
    };
    const labeller = {
      composites: jest.fn(
        async (items: { reply: string }[]) =>
          options.composites[items[0]?.reply.replace('reply of ', '') ?? ''] ?? [],
      ),
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
          useValue: {
            GATE_PROFILES: 2,
            GATE_HELDOUT_ITEMS: 8,
            GATE_MIN_SENTIENT_DELTA: -5,
            GATE_MIN_REWARD_DELTA: -0.05,
            GATE_TIMEOUT_SECONDS: 60,
            ...options.env,
          },
        },
      ],
    }).compile();
    const result = await moduleRef.get(GateService).run(CANDIDATE, BASE, heldout);
    return { result, evals, replies, labeller };
  }

  it('plays the default on the very profiles the candidate played, and passes a candidate as good as it', async () => {
    const { result, evals, replies, labeller } = await gate({
      scores: { [CANDIDATE.id]: 52, base: 50 },
      composites: { [CANDIDATE.id]: [0.8, 0.6, 0.7], base: [0.7, 0.6, 0.7] },
    });
    expect(evals.start).toHaveBeenNthCalledWith(1, CANDIDATE.id, { limit: 2 });
    expect(evals.start).toHaveBeenNthCalledWith(2, 'base', { profiles: ['p1', 'p2'] });
    expect(replies.answer).toHaveBeenCalledTimes(2);
    // The score endpoint takes the dialogue without the system prompt, ending with the user message.
    expect(labeller.composites.mock.calls[0]?.[0]?.[0]).toEqual({
      history: [{ role: 'user', content: 'I failed' }],
      reply: `reply of ${CANDIDATE.id}`,
    });
    expect(result).toEqual({
      passed: true,
      reasons: [],
      notes: [],
      sentient: expect.objectContaining({ profiles: 2, candidate: 52, default: 50, delta: 2 }),
      heldout: { items: 3, candidate: 0.7, default: 0.6667, delta: 0.0333 },
    });
  });

  it('fails a candidate whose sentient score falls below the threshold, saying by how much', async () => {
    const { result } = await gate({
      scores: { [CANDIDATE.id]: 40, base: 50 },
      composites: { [CANDIDATE.id]: [0.7], base: [0.7] },
    });
    expect(result.passed).toBe(false);
    expect(result.reasons).toEqual(['sentient score 40 vs default 50: delta -10 < -5']);
  });

  it('compares the held-out reward only on prompts both sides got a score for', async () => {
    const { result } = await gate({
      scores: { [CANDIDATE.id]: 50, base: 50 },
      composites: { [CANDIDATE.id]: [0.2, null, 0.4], base: [0.6, 0.9, 0.6] },
    });
    expect(result.heldout).toEqual({ items: 2, candidate: 0.3, default: 0.6, delta: -0.3 });
    expect(result.reasons).toEqual(['held-out reward 0.3 vs default 0.6: delta -0.3 < -0.05']);
  });

  it('says which checks could not run instead of passing them silently', async () => {
    const { result } = await gate({
      scores: {},
      composites: { [CANDIDATE.id]: [null, null, null], base: [null, null, null] },
      env: { GATE_PROFILES: 0 },
    });
    expect(result).toMatchObject({
      passed: true,
      sentient: null,
      notes: [
        'sentient benchmark off (GATE_PROFILES=0)',
        'held-out reward skipped: no held-out prompt got a score',
      ],
    });
  });
});
