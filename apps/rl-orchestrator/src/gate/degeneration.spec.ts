import { emptyOrRefusal, repeatedNgramShare, repeatedSentenceShare, wordCount } from './degeneration';

// The candidate a local refresh once shipped, and the base's answer to the same prompt.
const LOOPING = "I'm not sure what to say. ".repeat(7).trim();
const WARM =
  'Moving somewhere new can feel so isolating, especially when everyone around you already has their people. ' +
  "What did you love doing back home? Maybe there's a way to find that here too.";

describe('degeneration measures', () => {
  it('see the one sentence said seven times, and nothing in a varied answer', () => {
    expect(repeatedSentenceShare(LOOPING)).toBeCloseTo(6 / 7);
    expect(repeatedNgramShare(LOOPING)).toBeGreaterThan(0.8);
    expect(repeatedSentenceShare(WARM)).toBe(0);
    expect(repeatedNgramShare(WARM)).toBe(0);
  });

  it('count sentences by their words, across case, punctuation and line breaks', () => {
    expect(repeatedSentenceShare('Sure.\nsure!  SURE?')).toBeCloseTo(2 / 3);
    expect(repeatedSentenceShare('')).toBe(0);
  });

  it('catch a loop that never ends a sentence', () => {
    expect(repeatedNgramShare('and then we go and then we go and then we go and then we go')).toBeGreaterThan(
      0.5,
    );
    expect(repeatedNgramShare('too short')).toBe(0);
  });

  it('flag empty answers and refusals, not answers that merely say sorry', () => {
    expect(emptyOrRefusal('')).toBe(1);
    expect(emptyOrRefusal(' ... ')).toBe(1);
    expect(emptyOrRefusal("I'm sorry, but I can't help with that.")).toBe(1);
    expect(emptyOrRefusal('As an AI, I do not have feelings.')).toBe(1);
    expect(emptyOrRefusal("I'm so sorry you're going through that. I'm here.")).toBe(0);
    expect(emptyOrRefusal(WARM)).toBe(0);
  });

  it('count words in any script', () => {
    expect(wordCount('Ça va? 我很好 — thanks!')).toBe(4);
  });
});
