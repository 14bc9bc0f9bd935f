import { fixtureText } from './fixtures/fixtures';
import { applyMacros, characterNameForMacros } from './macros';
import { parseCardJson } from './parse';

const names = { char: 'Mirela', user: 'Sam' };

describe('applyMacros', () => {
  it('replaces {{char}} and {{user}} in any case, with spaces inside the braces', () => {
    expect(applyMacros('{{char}} greets {{user}}; {{CHAR}}/{{User}}/{{ char }}', names)).toBe(
      'Mirela greets Sam; Mirela/Sam/Mirela',
    );
  });

  it('replaces the legacy <BOT>, <CHAR> and <USER> forms', () => {
    expect(applyMacros('<BOT> waves at <USER>. <char> smiles. <bot>', names)).toBe(
      'Mirela waves at Sam. Mirela smiles. Mirela',
    );
  });

  it('replaces {{original}} with the text the card overrides, once', () => {
    const systemPrompt = '{{original}}\nStay in character as {{char}}. {{ORIGINAL}}';
    expect(applyMacros(systemPrompt, { ...names, original: 'You are a helpful roleplayer.' })).toBe(
      'You are a helpful roleplayer.\nStay in character as Mirela. ',
    );
    expect(applyMacros('{{original}}Be brief.', names)).toBe('Be brief.');
  });

  it('does not expand macros inside the names it substitutes', () => {
    expect(applyMacros('Hi {{user}}', { char: 'X', user: '{{char}} <BOT>' })).toBe('Hi {{char}} <BOT>');
  });

  it('leaves other braces and tags alone', () => {
    expect(applyMacros('{{random:a,b}} <b>bold</b> {char} {{chars}}', names)).toBe(
      '{{random:a,b}} <b>bold</b> {char} {{chars}}',
    );
  });
});

describe('characterNameForMacros', () => {
  it('uses a V3 nickname when there is one, else the name', () => {
    expect(characterNameForMacros(parseCardJson(fixtureText('v3-card.json')))).toBe('Kai');
    expect(characterNameForMacros(parseCardJson(fixtureText('v2-card.json')))).toBe('Mirela Voss');
    expect(
      characterNameForMacros(parseCardJson({ spec: 'chara_card_v3', data: { name: 'N', nickname: '' } })),
    ).toBe('N');
  });
});
