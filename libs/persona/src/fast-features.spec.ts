import { extractFastFeatures, type FastFeatureContext } from './fast-features';
import { type FieldName } from './fields';
import { type Observation } from './observation';

const CREATED_AT = '2025-03-01T12:00:00.000Z';

function features(text: string, context?: FastFeatureContext): Observation[] {
  return extractFastFeatures({ id: 'msg-1', text, createdAt: CREATED_AT }, context);
}

function only(observations: Observation[], field: FieldName): Observation[] {
  return observations.filter((observation) => observation.field === field);
}

function valueOf(text: string, field: FieldName, context?: FastFeatureContext): number | string | undefined {
  return only(features(text, context), field)[0]?.value;
}

function numberOf(text: string, field: FieldName): number {
  const value = valueOf(text, field);
  if (typeof value !== 'number') throw new Error(`no ${field} observed in ${JSON.stringify(text)}`);
  return value;
}

describe('extractFastFeatures', () => {
  it('attaches the message id, its time and the fast source to every observation', () => {
    const observations = features('Hello there, how are you today?');
    expect(observations.length).toBeGreaterThan(0);
    for (const observation of observations) {
      expect(observation).toMatchObject({
        messageId: 'msg-1',
        source: 'fast',
        observedAt: Date.parse(CREATED_AT),
      });
      expect(observation.weight).toBeGreaterThan(0);
      expect(observation.weight).toBeLessThanOrEqual(1);
    }
  });

  it('observes nothing in an empty or blank message', () => {
    expect(features('')).toEqual([]);
    expect(features('   \n ')).toEqual([]);
  });

  describe('speech style', () => {
    it('scores formal text as more formal than casual text', () => {
      const formal = numberOf(
        'Good morning. I would like to ask for your advice regarding a difficult situation at work. Thank you.',
        'formality',
      );
      const casual = numberOf("hey lol i'm sooo done with work rn, gonna quit fr", 'formality');
      expect(formal).toBeGreaterThan(0.7);
      expect(casual).toBeLessThan(0.3);
    });

    it('reads politeness registers in Japanese and Korean', () => {
      expect(numberOf('今日はとても疲れました。ありがとうございます。', 'formality')).toBeGreaterThan(0.6);
      expect(numberOf('감사합니다. 도와주셔서 고맙습니다.', 'formality')).toBeGreaterThan(0.6);
    });

    it('measures verbosity from length', () => {
      const short = numberOf('fine', 'verbosity');
      const long = numberOf(
        'So today I finally went to the interview I had been preparing for all month, and honestly it went better than I expected, although the last question about my previous job threw me off a little and I keep replaying it.',
        'verbosity',
      );
      expect(short).toBeLessThan(0.2);
      expect(long).toBeGreaterThan(0.7);
    });

    it('counts emoji, emoticons and slang as shares of the words', () => {
      expect(numberOf('That is a lovely idea.', 'emojiRate')).toBe(0);
      expect(numberOf('omg yes 😂😂 love it :)', 'emojiRate')).toBeGreaterThan(0.3);
      expect(numberOf('That is a lovely idea.', 'slangRate')).toBe(0);
      expect(numberOf('lol idk tbh, kinda tired rn', 'slangRate')).toBeGreaterThan(0.5);
      expect(numberOf('jajaja no sé', 'slangRate')).toBeGreaterThan(0);
    });

    it('gives a one-word message less say about formality than a long one', () => {
      const [short] = only(features('ok'), 'formality');
      const [long] = only(
        features('I have been thinking about what you said yesterday and I agree.'),
        'formality',
      );
      expect(short?.weight).toBeLessThan(long?.weight ?? 0);
    });
  });

  describe('language', () => {
    it.each([
      ['en', 'I think that this is what I really want to do with my life'],
      ['es', 'Hoy estoy muy cansada porque no dormí nada'],
      ['fr', "Je suis très fatiguée aujourd'hui, c'est trop pour moi"],
      ['de', 'Ich bin heute sehr müde und ich weiß nicht, was ich machen soll'],
      ['pt', 'Eu estou muito cansado hoje, não sei o que fazer'],
      ['it', 'Oggi sono molto stanco e non so cosa fare'],
      ['zh', '我今天很累，不知道该怎么办'],
      ['ja', '今日はとても疲れていて、どうすればいいかわからない'],
      ['ko', '오늘 너무 피곤해서 뭘 해야 할지 모르겠어'],
      ['ru', 'Я сегодня очень устал и не знаю, что делать'],
      ['uk', 'Я сьогодні дуже втомився і не знаю, що робити'],
    ])('detects %s', (language, text) => {
      expect(valueOf(text, 'language')).toBe(language);
    });

    it('says nothing when the words do not tell', () => {
      expect(valueOf('ok 👍', 'language')).toBeUndefined();
      expect(valueOf('1234', 'language')).toBeUndefined();
    });
  });

  describe('initiative', () => {
    it('reads questions and new topics as active', () => {
      expect(valueOf('What do you think about moving abroad?', 'initiative')).toBe('active');
      expect(valueOf('By the way, something happened at school today', 'initiative')).toBe('active');
    });

    it('reads minimal answers as passive, more so when answering a question', () => {
      const alone = only(features('idk'), 'initiative')[0];
      const answering = only(
        features('idk', { previousAssistantMessage: 'How was your day?' }),
        'initiative',
      )[0];
      expect(alone?.value).toBe('passive');
      expect(answering?.value).toBe('passive');
      expect(answering?.weight).toBeGreaterThan(alone?.weight ?? 1);
      expect(valueOf('it was fine', 'initiative', { previousAssistantMessage: 'How was it?' })).toBe(
        'passive',
      );
    });

    it('observes nothing from an ordinary statement', () => {
      expect(valueOf('I went to the shop and bought some bread.', 'initiative')).toBeUndefined();
    });
  });

  describe('emotion', () => {
    it('labels the feeling and places it in valence and arousal', () => {
      expect(valueOf('I feel so sad today', 'emotion')).toBe('sadness');
      expect(numberOf('I feel so sad today', 'valence')).toBeLessThan(-0.5);
      expect(valueOf("I'm furious with him!!", 'emotion')).toBe('anger');
      expect(numberOf("I'm furious with him!!", 'arousal')).toBeGreaterThan(0.8);
      expect(valueOf('I am so happy, I got the job', 'emotion')).toBe('joy');
      expect(numberOf('I am so happy, I got the job', 'valence')).toBeGreaterThan(0.5);
      expect(valueOf('really worried about the exam tomorrow', 'emotion')).toBe('anxiety');
      expect(valueOf('I feel so lonely lately', 'emotion')).toBe('loneliness');
    });

    it('turns a negated feeling around', () => {
      expect(valueOf("I'm not happy", 'emotion')).toBe('sadness');
      expect(numberOf("I'm not happy", 'valence')).toBeLessThan(0);
      expect(valueOf("I'm not happy", 'emotion')).not.toBe('joy');
      expect(numberOf("I don't feel sad anymore", 'valence')).toBeGreaterThan(0);
      expect(valueOf('No estoy feliz', 'emotion')).toBe('sadness');
      expect(valueOf('我今天不开心', 'emotion')).toBe('sadness');
    });

    it('stops negation at the end of a clause or at "but"', () => {
      expect(valueOf("It wasn't easy, but I'm happy", 'emotion')).toBe('joy');
      expect(valueOf('No. I am happy now', 'emotion')).toBe('joy');
    });

    it('reads feelings from emoji and from other languages', () => {
      expect(valueOf('😭😭', 'emotion')).toBe('sadness');
      expect(valueOf('Estoy muy preocupada por mi madre', 'emotion')).toBe('anxiety');
      expect(valueOf("J'ai peur", 'emotion')).toBe('fear');
      expect(valueOf('Ich bin so einsam', 'emotion')).toBe('loneliness');
      expect(valueOf('今日は悲しい', 'emotion')).toBe('sadness');
    });

    it('observes no emotion when no feeling is named', () => {
      expect(valueOf('I went to the shop and bought some bread.', 'emotion')).toBeUndefined();
    });
  });

  describe('explicit self-statements', () => {
    const stated = (text: string) =>
      features(text)
        .filter((observation) => observation.explicit)
        .map((observation) => [observation.field, observation.value]);

    it.each([
      ["I'm 34", [['ageBand', '30-39']]],
      ['i am 19 and i hate my job', [['ageBand', '18-29']]],
      ["I'm a 52 year old teacher", [['ageBand', '50-59']]],
      ['I just turned 40 last week', [['ageBand', '40-49']]],
      ["I'm in my late twenties", [['ageBand', '18-29']]],
      ["I'm a teenager", [['ageBand', '13-17']]],
      ['As a woman, I find this hard', [['gender', 'female']]],
      ["I'm a single dad", [['gender', 'male']]],
      ["I'm non-binary", [['gender', 'non-binary']]],
      [
        'I (34F) need advice about my husband (36M)',
        [
          ['ageBand', '30-39'],
          ['gender', 'female'],
        ],
      ],
      ['Tengo 16 años', [['ageBand', '13-17']]],
      [
        "J'ai 45 ans et je suis une femme",
        [
          ['ageBand', '40-49'],
          ['gender', 'female'],
        ],
      ],
      ['Мне 25 лет', [['ageBand', '18-29']]],
    ])('reads %j', (text, expected) => {
      expect(stated(text)).toEqual(expected);
    });

    it.each([
      'my mom is 50',
      'He is 34 years old',
      "I'm 5 minutes away",
      "I'm 20 minutes late, sorry",
      'When I was 15 I moved to Berlin',
      "I'm 100% sure",
      'I have 2 kids',
      "I'm seeing a man from work",
      "I'm not a woman who gives up",
      'He dressed as a woman for Halloween',
      'My husband (36M) is mad',
      'Tengo 20 años de experiencia',
    ])('sets nothing from %j', (text) => {
      expect(stated(text)).toEqual([]);
    });
  });

  describe('hidden need and empathy hints', () => {
    it('hints at advice for "what should I do" and at venting for "I just need to vent"', () => {
      expect(valueOf('My sister stopped talking to me. What should I do?', 'hiddenNeed')).toBe(
        'practical-advice',
      );
      expect(valueOf('My sister stopped talking to me. What should I do?', 'empathyAxis')).toBe('proactive');
      expect(valueOf("I don't want advice, I just need to vent", 'hiddenNeed')).toBe('listen-while-venting');
      expect(valueOf("I don't want advice, I just need to vent", 'empathyAxis')).toBe('affective');
      expect(valueOf('Was it my fault that she left?', 'hiddenNeed')).toBe('reassurance-not-at-fault');
      expect(valueOf('Why would he say that to me?', 'hiddenNeed')).toBe('understand-others');
    });

    it('keeps the hints weak', () => {
      for (const observation of features('What should I do? I just need to vent. Was it my fault?')) {
        if (observation.field === 'hiddenNeed' || observation.field === 'empathyAxis') {
          expect(observation.weight).toBeLessThanOrEqual(0.5);
        }
      }
    });

    it('hints at a high empathy threshold when comfort is rejected', () => {
      expect(valueOf("That's so generic. You always say that", 'empathyThreshold')).toBe('high');
    });
  });
});
