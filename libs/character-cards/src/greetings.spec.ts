import { fixtureText } from './fixtures/fixtures';
import { listGreetings } from './greetings';
import { parseCardJson } from './parse';

describe('listGreetings', () => {
  const v3 = parseCardJson(fixtureText('v3-card.json'));

  it('lists first_mes then the alternate greetings in a 1:1 chat', () => {
    expect(listGreetings(v3)).toEqual([
      '"Irasshai! Sit, sit. Shoyu again, {{user}}?"',
      '*Steam curls up.* "You look like you need extra chashu, {{user}}."',
    ]);
  });

  it('adds the group-only greetings in a group chat', () => {
    expect(listGreetings(v3, 'group')).toHaveLength(3);
    expect(listGreetings(v3, 'group').at(-1)).toBe('"A whole crowd tonight! Squeeze in, everyone."');
  });

  it('works for V2 cards, which have no group-only greetings', () => {
    expect(listGreetings(parseCardJson(fixtureText('v2-card.json')), 'group')).toHaveLength(3);
  });

  it('leaves out blank greetings', () => {
    const card = parseCardJson({
      spec: 'chara_card_v2',
      data: { name: 'Q', first_mes: '  ', alternate_greetings: ['', 'Hello.'] },
    });
    expect(listGreetings(card)).toEqual(['Hello.']);
    expect(listGreetings(parseCardJson({ spec: 'chara_card_v2', data: { name: 'Q' } }))).toEqual([]);
  });
});
