import { iedrToP0, turnIncrement } from './epm';
import {
  iedrJsonSchema,
  iedrJudgeMessages,
  iedrLevels,
  parseIedrOutput,
  parseTurnJudgeOutput,
  turnJudgeJsonSchema,
  turnJudgeMessages,
} from './epm-judge';
import { makeProfile } from './fixtures.spec-helper';

const IDS = ['C1', 'C2', 'C3', 'A1', 'A2', 'A3', 'P1', 'P2', 'P3'];
const iedr = (levels: number[]) =>
  JSON.stringify(Object.fromEntries(IDS.map((id, i) => [id, { level: levels[i], evidence: `about ${id}` }])));
const axis = (prog: number, neg: number) => ({ prog, progEvidence: 'p', neg, negEvidence: 'n' });

describe('IEDR judge', () => {
  it('prompts with every indicator and the case', () => {
    const [system, user] = iedrJudgeMessages(makeProfile());
    for (const id of IDS) expect(system?.content).toContain(`- ${id} (`);
    expect(user?.content).toContain('medication mix-up');
  });

  it('parses levels in indicator order, ready for P₀', () => {
    const parsed = parseIedrOutput(iedr([1, 2, 0, 0, 2, 0, 0, 0, 0]));
    if (!parsed.ok) throw new Error(parsed.detail);
    expect(iedrLevels(parsed.value)).toEqual([1, 2, 0, 0, 2, 0, 0, 0, 0]);
    expect(iedrToP0(iedrLevels(parsed.value))).toEqual({ C: -6, A: -8, P: 0 });
  });

  it('rejects a missing indicator, a level above 3 or missing evidence', () => {
    const missing = JSON.parse(iedr([0, 0, 0, 0, 0, 0, 0, 0, 0])) as Record<string, unknown>;
    delete missing.P3;
    expect(parseIedrOutput(JSON.stringify(missing))).toMatchObject({ ok: false, problem: 'bad_shape' });
    expect(parseIedrOutput(iedr([0, 0, 0, 0, 4, 0, 0, 0, 0]))).toMatchObject({
      ok: false,
      problem: 'bad_shape',
    });
    const noEvidence = JSON.parse(iedr([0, 0, 0, 0, 0, 0, 0, 0, 0])) as Record<string, { evidence: string }>;
    noEvidence.C1!.evidence = '';
    expect(parseIedrOutput(JSON.stringify(noEvidence))).toMatchObject({ ok: false });
  });

  it('exports a JSON schema without $schema', () => {
    expect(iedrJsonSchema).not.toHaveProperty('$schema');
    expect(iedrJsonSchema.required).toEqual(IDS);
  });
});

describe('turn judge', () => {
  it('prompts with the case, the dialogue and the reply', () => {
    const [, user] = turnJudgeMessages({
      profile: makeProfile(),
      history: [{ role: 'user', content: 'ugh. work again.' }],
      reply: 'That sounds rough.',
    });
    expect(user?.content).toContain('Person: ugh. work again.');
    expect(user?.content).toContain('<companion_reply>\nThat sounds rough.\n</companion_reply>');
  });

  it('parses ratings that feed turnIncrement', () => {
    const parsed = parseTurnJudgeOutput(JSON.stringify({ C: axis(2, 0), A: axis(1, -1), P: axis(0, -2) }));
    if (!parsed.ok) throw new Error(parsed.detail);
    expect(turnIncrement(parsed.value)).toEqual({ C: 3, A: -1, P: -5 });
  });

  it.each([
    ['neg above 0', { C: axis(0, 1), A: axis(0, 0), P: axis(0, 0) }],
    ['prog above 2', { C: axis(3, 0), A: axis(0, 0), P: axis(0, 0) }],
    ['a missing axis', { C: axis(0, 0), A: axis(0, 0) }],
  ])('rejects %s', (_name, value) => {
    expect(parseTurnJudgeOutput(JSON.stringify(value))).toMatchObject({ ok: false, problem: 'bad_shape' });
  });

  it('exports a JSON schema without $schema', () => {
    expect(turnJudgeJsonSchema).not.toHaveProperty('$schema');
    expect(turnJudgeJsonSchema.required).toEqual(['C', 'A', 'P']);
  });
});
