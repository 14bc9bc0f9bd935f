import { countPromptTokens, splitIntoTokens } from './word-piece-tokenizer';

describe('word-piece tokenizer', () => {
  it('keeps the whitespace before each word so the tokens join back to the text', () => {
    expect(splitIntoTokens('Hi there,  friend!\n')).toEqual(['Hi', ' there,', '  friend!', '\n']);
    expect(splitIntoTokens(' lead')).toEqual([' lead']);
    expect(splitIntoTokens('')).toEqual([]);
    const text = ' a  b\tc \n';
    expect(splitIntoTokens(text).join('')).toBe(text);
  });

  it('counts prompt tokens as content plus ChatML overhead', () => {
    const messages = [
      { role: 'system' as const, content: 'Be kind.' },
      { role: 'user' as const, content: 'Hello there' },
    ];
    expect(countPromptTokens(messages)).toBe(2 + 4 + 2 + 4 + 3);
  });
});
