import { confidenceAt } from './current-confidence';
import { mergeObservations } from './merge';
import { MAX_EVIDENCE_IDS } from './merge-rules';
import { type Observation, type ObservationDraft, type ObservationSource } from './observation';
import { emptyProfile, type UserProfile } from './profile';

const NOW = new Date('2025-03-01T12:00:00.000Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const later = (ms: number) => new Date(NOW.getTime() + ms);

let sequence = 0;
function observe(
  draft: ObservationDraft,
  origin: { messageId?: string; observedAt?: number; source?: ObservationSource } = {},
): Observation {
  sequence += 1;
  return {
    ...draft,
    messageId: origin.messageId ?? `m${sequence}`,
    observedAt: origin.observedAt ?? NOW.getTime(),
    source: origin.source ?? 'fast',
  };
}

/** Merges each observation as its own turn, at `at`. */
function mergeEach(profile: UserProfile, observations: Observation[], at = NOW): UserProfile {
  return observations.reduce(
    (current, observation) => mergeObservations(current, [observation], at),
    profile,
  );
}

const repeat = <T>(count: number, make: (index: number) => T): T[] =>
  Array.from({ length: count }, (_, i) => make(i));

describe('mergeObservations', () => {
  it('leaves the input profile unchanged', () => {
    const profile = emptyProfile();
    const merged = mergeObservations(profile, [observe({ field: 'formality', value: 0.8, weight: 1 })], NOW);
    expect(profile).toEqual({ schemaVersion: 1 });
    expect(merged.formality?.value).toBeCloseTo(0.8);
    expect(merged.formality?.updatedAt).toBe(NOW.toISOString());
  });

  describe('confidence', () => {
    it('grows with consistent evidence and stays below 1', () => {
      const confidences: number[] = [];
      let profile = emptyProfile();
      for (let i = 0; i < 40; i++) {
        profile = mergeObservations(profile, [observe({ field: 'formality', value: 0.8, weight: 1 })], NOW);
        confidences.push(profile.formality?.confidence ?? 0);
      }
      for (let i = 1; i < confidences.length; i++)
        expect(confidences[i]).toBeGreaterThan(confidences[i - 1] ?? 1);
      expect(confidences.at(-1)).toBeLessThan(1);
      expect(confidences.at(-1)).toBeGreaterThan(0.85);
    });

    it('grows the same way for categories', () => {
      const once = mergeEach(emptyProfile(), [observe({ field: 'initiative', value: 'passive', weight: 1 })]);
      const often = mergeEach(
        emptyProfile(),
        repeat(10, () => observe({ field: 'initiative', value: 'passive', weight: 1 })),
      );
      expect(often.initiative?.confidence).toBeGreaterThan(once.initiative?.confidence ?? 1);
      expect(often.initiative?.confidence).toBeLessThan(1);
    });

    it('decays with time, emotion in minutes and Big Five over months', () => {
      const profile = mergeEach(emptyProfile(), [
        ...repeat(3, () => observe({ field: 'emotion', value: 'sadness', weight: 1 })),
        ...repeat(3, () => observe({ field: 'openness', value: 0.7, weight: 1 }, { source: 'deep' })),
      ]);
      const emotionNow = confidenceAt(profile, 'emotion', NOW);
      const emotionLater = confidenceAt(profile, 'emotion', later(2 * 60 * MINUTE));
      expect(emotionNow).toBeCloseTo(profile.emotion?.confidence ?? 0);
      expect(emotionLater).toBeLessThan(emotionNow / 3);
      expect(confidenceAt(profile, 'openness', later(2 * 60 * MINUTE))).toBeCloseTo(
        confidenceAt(profile, 'openness', NOW),
        3,
      );
      expect(confidenceAt(profile, 'openness', later(365 * DAY))).toBeLessThan(
        confidenceAt(profile, 'openness', NOW),
      );
    });

    it('decays old evidence when new evidence arrives, so the new moves the value further', () => {
      const old = mergeEach(
        emptyProfile(),
        repeat(5, () => observe({ field: 'formality', value: 0.2, weight: 1 })),
      );
      const newEvidenceAt = (at: Date) =>
        mergeObservations(
          old,
          [observe({ field: 'formality', value: 0.9, weight: 1 }, { observedAt: at.getTime() })],
          at,
        );
      const soon = newEvidenceAt(later(MINUTE));
      const muchLater = newEvidenceAt(later(90 * DAY));
      expect(muchLater.formality?.value).toBeGreaterThan(soon.formality?.value ?? 1);
    });

    it('counts an observation of an old message less than a fresh one', () => {
      const fresh = mergeObservations(
        emptyProfile(),
        [observe({ field: 'emotion', value: 'joy', weight: 1 })],
        NOW,
      );
      const stale = mergeObservations(
        emptyProfile(),
        [observe({ field: 'emotion', value: 'joy', weight: 1 }, { observedAt: NOW.getTime() - 60 * MINUTE })],
        NOW,
      );
      expect(stale.emotion?.confidence).toBeLessThan(fresh.emotion?.confidence ?? 0);
    });
  });

  describe('contradiction', () => {
    it('lowers the confidence of a number and moves it part of the way', () => {
      const settled = mergeEach(
        emptyProfile(),
        repeat(6, () => observe({ field: 'formality', value: 0.9, weight: 1 })),
      );
      const contradicted = mergeObservations(
        settled,
        [observe({ field: 'formality', value: 0.1, weight: 1 })],
        NOW,
      );
      expect(contradicted.formality?.confidence).toBeLessThan(settled.formality?.confidence ?? 0);
      expect(contradicted.formality?.value).toBeLessThan(0.9);
      expect(contradicted.formality?.value).toBeGreaterThan(0.7);
    });

    it('lowers the confidence of a category and flips it only once outweighed', () => {
      let profile = mergeEach(
        emptyProfile(),
        repeat(3, () => observe({ field: 'initiative', value: 'passive', weight: 1 })),
      );
      const before = profile.initiative?.confidence ?? 0;
      profile = mergeObservations(
        profile,
        [observe({ field: 'initiative', value: 'active', weight: 1 })],
        NOW,
      );
      expect(profile.initiative?.value).toBe('passive');
      expect(profile.initiative?.confidence).toBeLessThan(before);
      profile = mergeEach(
        profile,
        repeat(2, () => observe({ field: 'initiative', value: 'active', weight: 1 })),
      );
      expect(profile.initiative?.value).toBe('passive');
      expect(profile.initiative?.confidence).toBe(0);
      profile = mergeObservations(
        profile,
        [observe({ field: 'initiative', value: 'active', weight: 1 })],
        NOW,
      );
      expect(profile.initiative?.value).toBe('active');
    });
  });

  it('weighs a deep (LLM) observation above a fast one', () => {
    const profile = mergeObservations(
      emptyProfile(),
      [
        observe({ field: 'hiddenNeed', value: 'practical-advice', weight: 1 }),
        observe({ field: 'hiddenNeed', value: 'listen-while-venting', weight: 1 }, { source: 'deep' }),
      ],
      NOW,
    );
    expect(profile.hiddenNeed?.value).toBe('listen-while-venting');
    const fast = mergeObservations(
      emptyProfile(),
      [observe({ field: 'neuroticism', value: 0.8, weight: 1 })],
      NOW,
    );
    const deep = mergeObservations(
      emptyProfile(),
      [observe({ field: 'neuroticism', value: 0.8, weight: 1 }, { source: 'deep' })],
      NOW,
    );
    expect(deep.neuroticism?.confidence).toBeGreaterThan(fast.neuroticism?.confidence ?? 1);
  });

  describe('explicit statements', () => {
    it('set age band and gender with high confidence and replace earlier statements', () => {
      let profile = mergeObservations(
        emptyProfile(),
        [observe({ field: 'ageBand', value: '30-39', weight: 1, explicit: true }, { messageId: 'first' })],
        NOW,
      );
      expect(profile.ageBand).toMatchObject({ value: '30-39', evidence: ['first'] });
      expect(profile.ageBand?.confidence).toBeGreaterThan(0.9);
      profile = mergeObservations(
        profile,
        [
          observe(
            { field: 'ageBand', value: '40-49', weight: 1, explicit: true },
            { messageId: 'second', observedAt: later(DAY).getTime() },
          ),
        ],
        later(DAY),
      );
      expect(profile.ageBand).toMatchObject({
        value: '40-49',
        evidence: ['second'],
        scores: { '40-49': 10 },
      });
    });

    it('are the only way to set age band and gender', () => {
      const profile = mergeObservations(
        emptyProfile(),
        [
          observe({ field: 'gender', value: 'female', weight: 1 }, { source: 'deep' }),
          observe({ field: 'ageBand', value: '18-29', weight: 1 }),
        ],
        NOW,
      );
      expect(profile.gender).toBeUndefined();
      expect(profile.ageBand).toBeUndefined();
    });

    it('override inferred evidence of other fields too', () => {
      const inferred = mergeEach(
        emptyProfile(),
        repeat(8, () => observe({ field: 'language', value: 'en', weight: 1 })),
      );
      const stated = mergeObservations(
        inferred,
        [observe({ field: 'language', value: 'es', weight: 1, explicit: true })],
        NOW,
      );
      expect(stated.language?.value).toBe('es');
      expect(stated.language?.scores).toEqual({ es: 10 });
    });
  });

  it('keeps only the newest message ids as evidence, without duplicates', () => {
    const ids = repeat(MAX_EVIDENCE_IDS + 5, (i) => `msg-${i}`);
    let profile = mergeEach(
      emptyProfile(),
      ids.map((messageId) => observe({ field: 'verbosity', value: 0.5, weight: 1 }, { messageId })),
    );
    expect(profile.verbosity?.evidence).toEqual(ids.slice(-MAX_EVIDENCE_IDS));
    profile = mergeObservations(
      profile,
      [observe({ field: 'verbosity', value: 0.5, weight: 1 }, { messageId: 'msg-7' })],
      NOW,
    );
    expect(profile.verbosity?.evidence).toHaveLength(MAX_EVIDENCE_IDS);
    expect(profile.verbosity?.evidence.at(-1)).toBe('msg-7');
    expect(new Set(profile.verbosity?.evidence).size).toBe(MAX_EVIDENCE_IDS);
  });

  it('derives the MBTI type from the four axes', () => {
    const axes = [
      observe({ field: 'mbtiExtraversion', value: 0.2, weight: 1 }, { source: 'deep' }),
      observe({ field: 'mbtiSensing', value: 0.3, weight: 1 }, { source: 'deep' }),
      observe({ field: 'mbtiThinking', value: 0.25, weight: 1 }, { source: 'deep' }),
    ];
    const partial = mergeObservations(emptyProfile(), axes, NOW);
    expect(partial.mbtiType).toBeUndefined();
    const full = mergeObservations(
      partial,
      [observe({ field: 'mbtiJudging', value: 0.8, weight: 1 }, { source: 'deep' })],
      NOW,
    );
    expect(full.mbtiType?.value).toBe('INFJ');
    expect(full.mbtiType?.confidence).toBeGreaterThan(0);
    expect(full.mbtiType?.confidence).toBeLessThan(full.mbtiJudging?.confidence ?? 0);
  });

  it('ignores observations it cannot use', () => {
    const untrusted = [
      observe({ field: 'valence', value: Number.NaN, weight: 1 }),
      observe({ field: 'arousal', value: 0.5, weight: 0 }),
      { ...observe({ field: 'emotion', value: 'joy', weight: 1 }), value: 'ecstasy' },
    ] as Observation[];
    expect(mergeObservations(emptyProfile(), untrusted, NOW)).toEqual({ schemaVersion: 1 });
  });

  it('clamps numbers into their range', () => {
    const profile = mergeObservations(
      emptyProfile(),
      [observe({ field: 'valence', value: -3, weight: 1 })],
      NOW,
    );
    expect(profile.valence?.value).toBe(-1);
  });
});
