import { mergeObservations } from '../merge';
import { emptyProfile } from '../profile';
import { deepExtractionMessages } from './extraction-prompt';
import { deepExtractionJsonSchema } from './extraction-schema';
import { parseDeepExtraction } from './parse-extraction';
import { deepExtractionDue, fastFeaturesShifted } from './schedule';
import { type ChatTurnText, extractionWindow } from './transcript';

const t0 = Date.parse('2026-11-01T10:00:00Z');
function conversation(userTurns: number): ChatTurnText[] {
  return Array.from({ length: userTurns }, (_, i) => [
    {
      id: `u${i + 1}`,
      role: 'user' as const,
      content: `user says ${i + 1}`,
      createdAt: new Date(t0 + i * 60_000),
    },
    {
      id: `a${i + 1}`,
      role: 'assistant' as const,
      content: `reply ${i + 1}`,
      createdAt: new Date(t0 + i * 60_000 + 1),
    },
  ]).flat();
}
const window = conversation(3);

describe('parseDeepExtraction', () => {
  it('turns each field into observations of the cited user messages, weight shared among them', () => {
    const result = parseDeepExtraction(
      JSON.stringify({
        hiddenNeed: { value: 'practical-advice', confidence: 0.8, evidence: [1, 3] },
        formality: { value: 0.2, confidence: 0.6, evidence: [2] },
      }),
      window,
    );
    expect(result.ok && result.observations).toHaveLength(3);
    expect(result.ok && result.observations).toEqual(
      expect.arrayContaining([
        {
          field: 'hiddenNeed',
          value: 'practical-advice',
          weight: 0.4,
          messageId: 'u1',
          observedAt: t0,
          source: 'deep',
        },
        {
          field: 'hiddenNeed',
          value: 'practical-advice',
          weight: 0.4,
          messageId: 'u3',
          observedAt: t0 + 120_000,
          source: 'deep',
        },
        {
          field: 'formality',
          value: 0.2,
          weight: 0.6,
          messageId: 'u2',
          observedAt: t0 + 60_000,
          source: 'deep',
        },
      ]),
    );
  });

  it('accepts an empty object: nothing could be judged', () => {
    expect(parseDeepExtraction('{}', window)).toEqual({ ok: true, observations: [] });
  });

  it('reads JSON wrapped in a code fence or after a think block', () => {
    const body = JSON.stringify({ initiative: { value: 'passive', confidence: 0.5, evidence: [2] } });
    for (const text of ['```json\n' + body + '\n```', `<think>hmm</think>${body}`]) {
      const result = parseDeepExtraction(text, window);
      expect(result.ok && result.observations.map((o) => o.value)).toEqual(['passive']);
    }
  });

  it.each([
    ['invalid JSON', '{"formality": {"value": 0.2', 'invalid_json'],
    ['prose', 'The user seems casual.', 'invalid_json'],
    [
      'a value out of range',
      '{"formality": {"value": 1.5, "confidence": 0.5, "evidence": [1]}}',
      'out_of_schema',
    ],
    [
      'an unknown category',
      '{"hiddenNeed": {"value": "money", "confidence": 0.5, "evidence": [1]}}',
      'out_of_schema',
    ],
    ['an unknown field', '{"zodiac": {"value": "leo", "confidence": 0.5, "evidence": [1]}}', 'out_of_schema'],
    ['no evidence', '{"formality": {"value": 0.5, "confidence": 0.5, "evidence": []}}', 'out_of_schema'],
    [
      'confidence above 1',
      '{"formality": {"value": 0.5, "confidence": 3, "evidence": [1]}}',
      'out_of_schema',
    ],
    [
      'evidence past the window',
      '{"formality": {"value": 0.5, "confidence": 0.5, "evidence": [4]}}',
      'out_of_schema',
    ],
    ['an array', '[]', 'out_of_schema'],
  ])('rejects %s as a whole', (_case, text, problem) => {
    const result = parseDeepExtraction(text, window);
    expect(result).toMatchObject({ ok: false, problem });
  });

  it('takes a stated age or gender only when the model is sure, and then as a statement', () => {
    const unsure = parseDeepExtraction(
      '{"gender": {"value": "female", "confidence": 0.6, "evidence": [1]}}',
      window,
    );
    expect(unsure).toEqual({ ok: true, observations: [] });
    const sure = parseDeepExtraction(
      '{"ageBand": {"value": "30-39", "confidence": 0.9, "evidence": [2]}}',
      window,
    );
    expect(sure.ok && sure.observations).toEqual([
      expect.objectContaining({ field: 'ageBand', explicit: true }),
    ]);
    const profile = mergeObservations(
      emptyProfile(),
      sure.ok ? sure.observations : [],
      new Date(t0 + 120_000),
    );
    expect(profile.ageBand?.value).toBe('30-39');
  });

  it('feeds the merge as deep evidence: its messages become the field evidence', () => {
    const result = parseDeepExtraction(
      '{"empathyAxis": {"value": "affective", "confidence": 0.9, "evidence": [1, 2]}}',
      window,
    );
    const profile = mergeObservations(
      emptyProfile(),
      result.ok ? result.observations : [],
      new Date(t0 + 120_000),
    );
    expect(profile.empathyAxis).toMatchObject({ value: 'affective', evidence: ['u1', 'u2'] });
  });
});

describe('extraction window and prompt', () => {
  it('keeps the newest 12 user messages and starts at a user message', () => {
    const messages = [{ ...conversation(1)[1]!, id: 'greeting' }, ...conversation(15)];
    const kept = extractionWindow(messages);
    expect(kept[0]?.id).toBe('u4');
    expect(kept.filter((m) => m.role === 'user')).toHaveLength(12);
    expect(kept.at(-1)?.id).toBe('a15');
  });

  it('numbers only the user messages, in order', () => {
    const [, user] = deepExtractionMessages(window);
    expect(user?.content).toBe(
      'Conversation:\n[1] User: user says 1\nCompanion: reply 1\n[2] User: user says 2\nCompanion: reply 2\n[3] User: user says 3\nCompanion: reply 3',
    );
  });

  it('describes every field the schema allows, and the schema forbids others', () => {
    const [system] = deepExtractionMessages(window);
    const properties = Object.keys((deepExtractionJsonSchema as { properties: object }).properties);
    for (const field of properties) expect(system?.content).toContain(field);
    expect(deepExtractionJsonSchema).toMatchObject({ type: 'object', additionalProperties: false });
  });
});

describe('deep extraction schedule', () => {
  it('runs every 4 user turns, or after 2 when the fast features shifted', () => {
    expect([1, 2, 3, 4, 5].map((n) => deepExtractionDue(n, false))).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
    expect([1, 2, 3].map((n) => deepExtractionDue(n, true))).toEqual([false, true, true]);
  });

  it('sees a shift when the emotion, need, axis or initiative changes value', () => {
    const now = new Date(t0);
    const base = { messageId: 'm', observedAt: t0, weight: 1, source: 'fast' as const };
    const calm = mergeObservations(emptyProfile(), [{ ...base, field: 'emotion', value: 'neutral' }], now);
    const angry = mergeObservations(
      calm,
      [
        { ...base, field: 'emotion', value: 'anger', weight: 1 },
        { ...base, field: 'emotion', value: 'anger' },
      ],
      now,
    );
    const wordier = mergeObservations(calm, [{ ...base, field: 'verbosity', value: 0.9 }], now);
    expect(fastFeaturesShifted(emptyProfile(), calm)).toBe(true);
    expect(fastFeaturesShifted(calm, angry)).toBe(true);
    expect(fastFeaturesShifted(calm, wordier)).toBe(false);
    expect(fastFeaturesShifted(calm, calm)).toBe(false);
  });
});
