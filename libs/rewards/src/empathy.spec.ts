import { DEFAULT_REWARD_CONFIG as config } from './config';
import { empathyJudgeMessages, empathyLabels, empathyMode, empathyReward } from './empathy';
import { parseVerdict } from './verdict';

const history = [
  { role: 'system' as const, content: 'You are Mia.' },
  { role: 'user' as const, content: 'I failed my driving test again.' },
  { role: 'assistant' as const, content: 'Oh no, the third time?' },
  { role: 'user' as const, content: 'Yes. I feel useless.' },
];

describe('empathyJudgeMessages', () => {
  it('compares with the reference when there is one', () => {
    const [system, user] = empathyJudgeMessages({
      history,
      reply: 'You are not useless.',
      reference: 'Ref.',
    });
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/Verdict: <label>/);
    expect(system?.content).toMatch(/better: the candidate reply is more empathetic than the reference/);
    expect(user?.role).toBe('user');
    expect(user?.content).toContain('User: I failed my driving test again.');
    expect(user?.content).toContain('Companion: Oh no, the third time?');
    expect(user?.content).not.toContain('You are Mia.');
    expect(user?.content).toContain('<candidate_reply>\nYou are not useless.\n</candidate_reply>');
    expect(user?.content).toContain('<reference_reply>\nRef.\n</reference_reply>');
  });

  it('grades 1 to 5 without a reference', () => {
    for (const reference of [undefined, null, '  ']) {
      const [system, user] = empathyJudgeMessages({ history, reply: 'Hm.', reference });
      expect(system?.content).toMatch(/Verdict: <grade>/);
      expect(system?.content).toMatch(/- 5: /);
      expect(user?.content).toContain('<reply>\nHm.\n</reply>');
      expect(user?.content).not.toContain('reference');
    }
  });
});

describe('empathyMode and empathyLabels', () => {
  it('picks the mode from the reference and lists its labels', () => {
    expect(empathyMode('Ref.')).toBe('comparative');
    expect(empathyMode(null)).toBe('absolute');
    expect(empathyLabels('comparative', config)).toEqual(['worse', 'tie', 'better']);
    expect(empathyLabels('absolute', config)).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('empathyReward', () => {
  it('multiplies the gate by the configured level', () => {
    expect(empathyReward('better', 'comparative', { value: 1 }, config)).toBe(1);
    expect(empathyReward('tie', 'comparative', { value: 1 }, config)).toBe(0.5);
    expect(empathyReward('4', 'absolute', { value: 1 }, config)).toBe(0.75);
  });

  it('is zeroed by a failed gate', () => {
    expect(empathyReward('better', 'comparative', { value: 0 }, config)).toBe(0);
    expect(empathyReward('5', 'absolute', { value: 0 }, config)).toBe(0);
  });

  it('works on what parseVerdict returns', () => {
    const parsed = parseVerdict('Warm.\n**Verdict:** BETTER', empathyLabels('comparative', config));
    expect(parsed.ok && empathyReward(parsed.value.label, 'comparative', { value: 1 }, config)).toBe(1);
  });

  it('throws on a label the config does not hold', () => {
    expect(() => empathyReward('great', 'comparative', { value: 1 }, config)).toThrow(/unknown/);
    expect(() => empathyReward('constructor', 'comparative', { value: 1 }, config)).toThrow(/unknown/);
  });
});
