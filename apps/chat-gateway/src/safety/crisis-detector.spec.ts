import { assessCrisis } from './crisis-detector';

describe('assessCrisis', () => {
  it.each([
    ['I want to kill myself', 'self_harm'],
    ["honestly I don't want to wake up anymore", 'self_harm'],
    ['I’ve been thinking about suicide a lot', 'self_harm'],
    ['everyone would be better off without me', 'self_harm'],
    ['I started cutting myself again', 'self_harm'],
    ['my husband hits me when he drinks', 'abuse'],
    ["I'm scared to go home tonight", 'abuse'],
    ["I'm going to kill him tomorrow", 'harm_to_others'],
    ['he brought a gun to school', 'harm_to_others'],
  ])('flags %j as %s', (text, category) => {
    expect(assessCrisis(text)).toEqual({ flagged: true, categories: [category] });
  });

  it.each([
    'this exam is killing me',
    'I could kill for a coffee right now',
    'I was dying of laughter',
    'I want to die laughing at this meme',
    'that dress is to die for',
    'we played a killer game last night',
    'my boss yells a lot but it is fine',
    'I killed it at the interview!',
    'the character kills herself in the novel’s last chapter?',
  ])('does not flag everyday hyperbole or fiction talk: %j', (text) => {
    expect(assessCrisis(text).flagged).toBe(false);
  });

  it('reports every category found', () => {
    expect(assessCrisis('he beats me and I want to end it all').categories.sort()).toEqual([
      'abuse',
      'self_harm',
    ]);
  });
});
