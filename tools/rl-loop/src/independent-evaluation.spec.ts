import { parseProfilesJsonl } from '@echoloop/sentient';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SentimentIntensityAnalyzer } from 'vader-sentiment';
import { benchmarkProfileIds, userMood } from './independent-evaluation';
import { ROOT } from './output';

const compound = (text: string) => SentimentIntensityAnalyzer.polarity_scores(text).compound;

describe('userMood (the independent evaluation scorer)', () => {
  it("scores only what the user says after the companion's first reply, as VADER's mean compound", () => {
    const history = [
      { role: 'user', content: 'I feel awful, everything went wrong today.' },
      { role: 'assistant', content: 'Whatever.' },
      { role: 'user', content: 'Wow, thanks a lot. That is really helpful, I feel so much better.' },
      { role: 'assistant', content: 'Glad to hear.' },
      { role: 'user', content: 'I hate this. Nobody listens.' },
    ];
    const after = [history[2]!.content, history[4]!.content].map(compound);

    expect(userMood(history)).toBeCloseTo((after[0]! + after[1]!) / 2, 10);
    // The opener's despair is the profile's, written before any reply: it does not count.
    expect(userMood(history)).not.toBeCloseTo(
      [history[0]!.content, ...[2, 4].map((i) => history[i]!.content)].map(compound).reduce((a, b) => a + b) /
        3,
      3,
    );
  });

  it('reads a grateful user as happier than a hurt one, and has no verdict when the user never answered', () => {
    const reply = { role: 'assistant', content: 'I hear you.' };
    const opener = { role: 'user', content: 'My dog died.' };
    const grateful = userMood([opener, reply, { role: 'user', content: 'Thank you, that really helps.' }]);
    const hurt = userMood([opener, reply, { role: 'user', content: 'That was cold and hurtful.' }]);

    expect(grateful).toBeGreaterThan(0);
    expect(hurt).toBeLessThan(0);
    expect(userMood([opener, reply])).toBeNull();
    expect(userMood([opener])).toBeNull();
  });

  it('evaluates on benchmark-pool profiles only, the pool training never sees', () => {
    const ids = benchmarkProfileIds(5);

    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);
    const pools = new Map(
      parseProfilesJsonl(readFileSync(path.join(ROOT, 'data/sentient/profiles.jsonl'), 'utf8')).profiles.map(
        (p) => [p.id, p.pool],
      ),
    );
    expect(ids.map((id) => pools.get(id))).toEqual(Array(5).fill('benchmark'));
  });
});
