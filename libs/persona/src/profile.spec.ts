import { z } from 'zod';
import { extractFastFeatures } from './fast-features';
import { mergeObservations } from './merge';
import { emptyProfile, type UserProfile, userProfileSchema } from './profile';
import { profileSnapshot, profileSnapshotSchema } from './snapshot';

const NOW = new Date('2025-03-01T12:00:00.000Z');

function profileFromChat(): UserProfile {
  const messages = [
    "hey lol I'm 34 and as a woman in tech I'm so stressed rn 😭",
    'What should I do? My manager keeps ignoring my ideas',
    'idk',
  ];
  return messages.reduce(
    (profile, text, i) =>
      mergeObservations(profile, extractFastFeatures({ id: `m${i}`, text, createdAt: NOW }), NOW),
    emptyProfile(),
  );
}

describe('userProfileSchema', () => {
  it('round-trips a profile through JSON', () => {
    const profile = mergeObservations(
      profileFromChat(),
      [
        {
          field: 'mbtiExtraversion',
          value: 0.3,
          weight: 1,
          messageId: 'm9',
          observedAt: NOW.getTime(),
          source: 'deep',
        },
        {
          field: 'mbtiSensing',
          value: 0.6,
          weight: 1,
          messageId: 'm9',
          observedAt: NOW.getTime(),
          source: 'deep',
        },
        {
          field: 'mbtiThinking',
          value: 0.7,
          weight: 1,
          messageId: 'm9',
          observedAt: NOW.getTime(),
          source: 'deep',
        },
        {
          field: 'mbtiJudging',
          value: 0.4,
          weight: 1,
          messageId: 'm9',
          observedAt: NOW.getTime(),
          source: 'deep',
        },
      ],
      NOW,
    );
    expect(profile.mbtiType?.value).toBe('ISTP');
    const parsed = userProfileSchema.parse(JSON.parse(JSON.stringify(profile)));
    expect(parsed).toEqual(profile);
    expect(userProfileSchema.parse(emptyProfile())).toEqual({ schemaVersion: 1 });
  });

  it('rejects out-of-range values, unknown categories and unbounded evidence', () => {
    const field = { confidence: 0.5, evidence: ['m1'], updatedAt: NOW.toISOString() };
    const valid = { schemaVersion: 1, formality: { ...field, value: 0.5, weight: 1, variance: 0 } };
    expect(userProfileSchema.safeParse(valid).success).toBe(true);
    const invalid = [
      { ...valid, formality: { ...valid.formality, value: 1.5 } },
      { ...valid, formality: { ...valid.formality, confidence: 1.2 } },
      {
        ...valid,
        formality: { ...valid.formality, evidence: Array.from({ length: 11 }, (_, i) => `m${i}`) },
      },
      { schemaVersion: 1, gender: { ...field, value: 'unknown', scores: { unknown: 1 } } },
      { schemaVersion: 1, hiddenNeed: { ...field, value: 'practical-advice', scores: { nonsense: 1 } } },
      { schemaVersion: 1, mbtiType: { ...field, value: 'ABCD' } },
      { schemaVersion: 2 },
    ];
    for (const profile of invalid) expect(userProfileSchema.safeParse(profile).success).toBe(false);
  });
});

describe('profileSnapshot', () => {
  it('keeps values and confidences only, rounded', () => {
    const profile = profileFromChat();
    const snapshot = profileSnapshot(profile);
    expect(profileSnapshotSchema.parse(snapshot)).toEqual(snapshot);
    expect(snapshot.fields['ageBand']).toEqual({ value: '30-39', confidence: 0.91 });
    expect(snapshot.fields['gender']).toEqual({ value: 'female', confidence: 0.91 });
    expect(JSON.stringify(snapshot)).not.toContain('evidence');
    expect(JSON.stringify(snapshot)).not.toContain('scores');
    for (const entry of Object.values(snapshot.fields)) {
      if (typeof entry.value === 'number') expect(entry.value).toBe(Math.round(entry.value * 100) / 100);
      expect(entry.confidence).toBe(Math.round(entry.confidence * 100) / 100);
    }
  });

  it('decays confidences to `now` when given', () => {
    const profile = profileFromChat();
    const hoursLater = new Date(NOW.getTime() + 3 * 3_600_000);
    expect(profileSnapshot(profile, hoursLater).fields['emotion']?.confidence).toBeLessThan(
      profileSnapshot(profile).fields['emotion']?.confidence ?? 0,
    );
  });

  it('fits the personaSnapshot slot of chat.turn.completed.v1 (a JSON object) and stays small', () => {
    const snapshot = profileSnapshot(profileFromChat());
    expect(z.record(z.string(), z.unknown()).safeParse(JSON.parse(JSON.stringify(snapshot))).success).toBe(
      true,
    );
    expect(JSON.stringify(snapshot).length).toBeLessThan(1500);
  });
});
