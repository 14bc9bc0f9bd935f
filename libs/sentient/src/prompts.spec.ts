import { makeProfile } from './fixtures.spec-helper';
import { HIDDEN_NEED_DESCRIPTIONS } from './profile';
import { actorMessages, analyserMessages } from './prompts';

const history = [
  { role: 'user' as const, content: 'ugh. work again.' },
  { role: 'assistant' as const, content: 'Rough shift ahead?' },
];
const text = (messages: { content: string }[]) => messages.map((message) => message.content).join('\n');

describe('analyserMessages', () => {
  it('gives persona, scene with the hidden need, the score number and the you/companion history', () => {
    const prompt = text(analyserMessages({ profile: makeProfile(), score: 37, history }));
    expect(prompt).toContain('Mara Quill');
    expect(prompt).toContain('medication mix-up');
    expect(prompt).toContain(HIDDEN_NEED_DESCRIPTIONS['reassurance-not-at-fault']);
    expect(prompt).toContain('Current mood score: 37 / 100');
    expect(prompt).toContain('"role": "you"');
    expect(prompt).toContain('"content": "Rough shift ahead?"');
    expect(prompt).toContain('from -10 to 10');
    expect(prompt).toMatch(/"change": <integer>/);
  });
});

describe('actorMessages', () => {
  const analysis = { content: 'asks', goalFit: 'off', innerActivity: 'wary', feeling: 'meh' };

  it.each([
    ['S', /say goodbye; set "goodbye" to true/],
    ['A', /warm and open/],
    ['B', /neutral/],
    ['C', /curt, disappointed or irritated/],
    ['F', /Say goodbye and leave/],
  ] as const)('describes bucket %s by label, without a score', (bucket, behaviour) => {
    const prompt = text(actorMessages({ profile: makeProfile(), bucket, history, analysis }));
    expect(prompt).toContain(`Your mood: ${bucket}.`);
    expect(prompt).toMatch(behaviour);
    expect(prompt).not.toMatch(/score: \d/);
    expect(prompt).toContain('Inner activity: wary');
    expect(prompt).toContain('never state it');
    expect(prompt).toContain('ask at most 2 questions');
    expect(prompt).toContain('passive: you follow the other person and do not ask questions');
    expect(prompt).toMatch(/"goodbye": false/);
  });

  it('splits older context from the latest exchange', () => {
    const long = [
      ...history,
      { role: 'user' as const, content: 'whatever.' },
      { role: 'assistant' as const, content: 'Hm?' },
    ];
    const prompt = text(actorMessages({ profile: makeProfile(), bucket: 'B', history: long }));
    expect(prompt).toMatch(/<earlier_conversation>[\s\S]*ugh\. work again\.[\s\S]*<\/earlier_conversation>/);
    expect(prompt).toMatch(/<latest_exchange>[\s\S]*whatever\.[\s\S]*Hm\?[\s\S]*<\/latest_exchange>/);
  });

  it('asks for an opener on an empty history', () => {
    const prompt = text(actorMessages({ profile: makeProfile(), bucket: 'C', history: [] }));
    expect(prompt).toContain('first message');
    expect(prompt).not.toContain('<latest_exchange>');
  });
});
