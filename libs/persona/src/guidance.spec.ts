import { personaGuidance } from './guidance';
import { mergeObservations } from './merge';
import { type Observation, type ObservationDraft } from './observation';
import { emptyProfile, type UserProfile } from './profile';

const NOW = new Date('2025-03-01T12:00:00.000Z');

function deep(draft: ObservationDraft): Observation {
  return { ...draft, messageId: 'm1', observedAt: NOW.getTime(), source: 'deep' };
}

/** A profile where each draft was observed `times` times by the deep extraction. */
function profileOf(drafts: ObservationDraft[], times = 4): UserProfile {
  let profile = emptyProfile();
  for (let i = 0; i < times; i++) profile = mergeObservations(profile, drafts.map(deep), NOW);
  return profile;
}

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('personaGuidance', () => {
  it('is empty when nothing is known or nothing is confident', () => {
    expect(personaGuidance(emptyProfile())).toBe('');
    const weak = mergeObservations(
      emptyProfile(),
      [
        {
          field: 'hiddenNeed',
          value: 'practical-advice',
          weight: 0.3,
          messageId: 'm1',
          observedAt: NOW.getTime(),
          source: 'fast',
        },
      ],
      NOW,
    );
    expect(personaGuidance(weak)).toBe('');
  });

  it('adapts strategy, emotion, length, tone and language from confident fields', () => {
    const guidance = personaGuidance(
      profileOf([
        { field: 'hiddenNeed', value: 'listen-while-venting', weight: 1 },
        { field: 'emotion', value: 'anxiety', weight: 1 },
        { field: 'verbosity', value: 0.2, weight: 1 },
        { field: 'formality', value: 0.2, weight: 1 },
        { field: 'emojiRate', value: 0.2, weight: 1 },
        { field: 'language', value: 'es', weight: 1 },
        { field: 'initiative', value: 'passive', weight: 1 },
      ]),
    );
    expect(guidance).toContain('Listen and validate; no advice unless asked.');
    expect(guidance).toContain('They seem anxious right now');
    expect(guidance).toContain('Keep replies short.');
    expect(guidance).toContain('Tone: casual, emoji welcome.');
    expect(guidance).toContain('Reply in Spanish.');
    expect(countWords(guidance)).toBeLessThanOrEqual(60);
  });

  it('asks for advice when advice is the need', () => {
    const guidance = personaGuidance(
      profileOf([{ field: 'hiddenNeed', value: 'practical-advice', weight: 1 }]),
    );
    expect(guidance).toBe('Adapt to this user: Offer concrete, practical advice.');
  });

  it('leaves out fields under the confidence threshold', () => {
    const confident = profileOf([{ field: 'verbosity', value: 0.9, weight: 1 }]);
    const profile = mergeObservations(
      confident,
      [
        {
          field: 'hiddenNeed',
          value: 'deep-empathy',
          weight: 0.3,
          messageId: 'm2',
          observedAt: NOW.getTime(),
          source: 'fast',
        },
      ],
      NOW,
    );
    const guidance = personaGuidance(profile);
    expect(guidance).toContain('Fuller, detailed replies are welcome.');
    expect(guidance).not.toContain('empathy');
    expect(personaGuidance(profile, { minConfidence: 0.99 })).toBe('');
  });

  it('drops a current emotion once it has decayed', () => {
    const profile = profileOf([{ field: 'emotion', value: 'sadness', weight: 1 }]);
    expect(personaGuidance(profile, { now: NOW })).toContain('sad');
    expect(personaGuidance(profile, { now: new Date(NOW.getTime() + 6 * 3_600_000) })).toBe('');
  });

  it('never mentions gender, and flags a stated minor first', () => {
    const guidance = personaGuidance(
      profileOf(
        [
          { field: 'gender', value: 'female', weight: 1, explicit: true },
          { field: 'ageBand', value: '13-17', weight: 1, explicit: true },
          { field: 'hiddenNeed', value: 'praise-for-actions', weight: 1 },
        ],
        1,
      ),
    );
    expect(guidance).toMatch(/^Adapt to this user: They are a minor/);
    expect(guidance).not.toMatch(/female|woman|girl/i);
  });

  it('stays within 60 words with everything confident', () => {
    const guidance = personaGuidance(
      profileOf([
        { field: 'ageBand', value: '13-17', weight: 1, explicit: true },
        { field: 'emotion', value: 'loneliness', weight: 1 },
        { field: 'hiddenNeed', value: 'reassurance-not-at-fault', weight: 1 },
        { field: 'empathyAxis', value: 'affective', weight: 1 },
        { field: 'empathyThreshold', value: 'high', weight: 1 },
        { field: 'verbosity', value: 0.9, weight: 1 },
        { field: 'formality', value: 0.9, weight: 1 },
        { field: 'initiative', value: 'active', weight: 1 },
        { field: 'neuroticism', value: 0.9, weight: 1 },
        { field: 'extraversion', value: 0.1, weight: 1 },
        { field: 'language', value: 'fr', weight: 1 },
      ]),
    );
    expect(countWords(guidance)).toBeLessThanOrEqual(60);
    expect(guidance).toContain("Reassure them where it's fair; don't flatter.");
  });
});
