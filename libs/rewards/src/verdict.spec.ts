import { parseVerdict } from './verdict';

const COMPARATIVE = ['worse', 'tie', 'better'];
const ABSOLUTE = ['1', '2', '3', '4', '5'];

describe('parseVerdict', () => {
  it('reads a plain verdict and keeps the reasoning before it', () => {
    expect(parseVerdict('The reply names her fear.\nIt is warmer.\nVerdict: better', COMPARATIVE)).toEqual({
      ok: true,
      value: { reasoning: 'The reply names her fear.\nIt is warmer.', label: 'better' },
    });
  });

  it.each([
    ['**Verdict:** tie', 'tie'],
    ['**Verdict**: tie', 'tie'],
    ['** Verdict ** : ** tie **', 'tie'],
    ['Verdict：better', 'better'],
    ['verdict: WORSE', 'worse'],
    ['  Label: Better.', 'better'],
  ])('reads %j', (line, label) => {
    const parsed = parseVerdict(`reasoning\n${line}`, COMPARATIVE);
    expect(parsed).toEqual({ ok: true, value: { reasoning: 'reasoning', label } });
  });

  it('returns the configured spelling of the label', () => {
    const parsed = parseVerdict('Verdict: humanLIKE', ['robotic', 'Mixed', 'HumanLike']);
    expect(parsed.ok && parsed.value.label).toBe('HumanLike');
  });

  it('takes the last verdict line when there are several', () => {
    const text = 'First thought.\nVerdict: worse\nOn reflection, no.\nVerdict: better';
    expect(parseVerdict(text, COMPARATIVE)).toEqual({
      ok: true,
      value: { reasoning: 'First thought.\nVerdict: worse\nOn reflection, no.', label: 'better' },
    });
  });

  it('reads numeric grades', () => {
    const parsed = parseVerdict('Good but generic.\nVerdict: 3', ABSOLUTE);
    expect(parsed.ok && parsed.value.label).toBe('3');
  });

  it('ignores verdicts inside <think> blocks', () => {
    const text = '<think>Maybe Verdict: worse</think>\nIt is kind.\nVerdict: tie';
    expect(parseVerdict(text, COMPARATIVE)).toEqual({
      ok: true,
      value: { reasoning: 'It is kind.', label: 'tie' },
    });
    expect(parseVerdict('<think>Verdict: worse</think>No verdict here.', COMPARATIVE)).toMatchObject({
      ok: false,
      problem: 'no_label',
    });
  });

  it('reports a missing verdict', () => {
    expect(parseVerdict('The reply is better.', COMPARATIVE)).toMatchObject({
      ok: false,
      problem: 'no_label',
    });
    expect(parseVerdict('', COMPARATIVE)).toMatchObject({ ok: false, problem: 'no_label' });
  });

  it('reports an unknown label', () => {
    expect(parseVerdict('Verdict: great', COMPARATIVE)).toMatchObject({
      ok: false,
      problem: 'unknown_label',
    });
    expect(parseVerdict('Verdict: 6', ABSOLUTE)).toMatchObject({ ok: false, problem: 'unknown_label' });
  });
});
