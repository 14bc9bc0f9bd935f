import { ThinkFilter } from './think-filter';

function run(chunks: string[]) {
  const filter = new ThinkFilter();
  const shown = chunks.map((c) => filter.push(c)).join('') + filter.end();
  return { shown, visible: filter.visible, reasoning: filter.reasoning };
}

describe('ThinkFilter', () => {
  it('passes plain text through unchanged', () => {
    expect(run(['Hello ', 'there!'])).toEqual({
      shown: 'Hello there!',
      visible: 'Hello there!',
      reasoning: null,
    });
  });

  it('hides reasoning and keeps it', () => {
    const result = run(['<think>They seem sad.</think>', 'I am sorry to hear that.']);
    expect(result.shown).toBe('I am sorry to hear that.');
    expect(result.reasoning).toBe('They seem sad.');
  });

  it('handles tags split across every possible chunk boundary', () => {
    const text = 'Hi <think>plan: be kind</think>friend';
    for (let size = 1; size <= 6; size++) {
      const chunks = text.match(new RegExp(`.{1,${size}}`, 'gs')) ?? [];
      expect(run(chunks)).toEqual({ shown: 'Hi friend', visible: 'Hi friend', reasoning: 'plan: be kind' });
    }
  });

  it('never shows an unclosed think block', () => {
    expect(run(['ok <think>secret', ' stuff']).shown).toBe('ok ');
  });

  it('does not swallow text that only looks like a tag start', () => {
    expect(run(['a <th', 'ing> b']).shown).toBe('a <thing> b');
  });
});
