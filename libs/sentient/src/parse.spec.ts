import { actorJsonSchema, analyserJsonSchema, parseActorOutput, parseAnalyserOutput } from './parse';

const analysis = (change: unknown) =>
  JSON.stringify({
    content: 'asks',
    goalFit: 'close',
    innerActivity: 'softening',
    feeling: 'a bit better',
    change,
  });

describe('parseAnalyserOutput', () => {
  it('reads the JSON, tolerating think text and a code fence', () => {
    const parsed = parseAnalyserOutput(`<think>hmm</think>\n\`\`\`json\n${analysis(4)}\n\`\`\``);
    expect(parsed).toEqual({
      ok: true,
      value: {
        content: 'asks',
        goalFit: 'close',
        innerActivity: 'softening',
        feeling: 'a bit better',
        change: 4,
        rawChange: 4,
      },
    });
  });

  it('clamps change to ±10 and keeps the raw value', () => {
    const high = parseAnalyserOutput(analysis(15));
    const low = parseAnalyserOutput(analysis(-12));
    expect(high.ok && [high.value.change, high.value.rawChange]).toEqual([10, 15]);
    expect(low.ok && [low.value.change, low.value.rawChange]).toEqual([-10, -12]);
  });

  it.each([
    ['non-JSON', 'Change: +3', 'not_json'],
    ['broken JSON', '{"content": "x", ', 'not_json'],
    [
      'missing change',
      JSON.stringify({ content: 'a', goalFit: 'b', innerActivity: 'c', feeling: 'd' }),
      'bad_shape',
    ],
    ['float change', analysis(2.5), 'bad_shape'],
    ['string change', analysis('+3'), 'bad_shape'],
    [
      'empty field',
      JSON.stringify({ content: '', goalFit: 'b', innerActivity: 'c', feeling: 'd', change: 1 }),
      'bad_shape',
    ],
  ])('rejects %s', (_name, text, problem) => {
    const parsed = parseAnalyserOutput(text);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.problem).toBe(problem);
  });
});

describe('parseActorOutput', () => {
  const actor = (goodbye: unknown) =>
    JSON.stringify({ thinking: 't', draft: 'd', response: 'fine.', goodbye });

  it('reads a valid answer', () => {
    expect(parseActorOutput(actor(false))).toEqual({
      ok: true,
      value: { thinking: 't', draft: 'd', response: 'fine.', goodbye: false },
    });
  });

  it.each([['yes'], ['true'], [1], [undefined]])('rejects goodbye = %p', (goodbye) => {
    const parsed = parseActorOutput(actor(goodbye));
    expect(!parsed.ok && parsed.problem).toBe('bad_shape');
  });
});

describe('JSON schemas', () => {
  it('have no $schema key and require every field', () => {
    expect(analyserJsonSchema).not.toHaveProperty('$schema');
    expect(analyserJsonSchema.required).toEqual(['content', 'goalFit', 'innerActivity', 'feeling', 'change']);
    expect((analyserJsonSchema.properties as Record<string, { type: string }>).change?.type).toBe('integer');
    expect(actorJsonSchema).not.toHaveProperty('$schema');
    expect(actorJsonSchema.required).toEqual(['thinking', 'draft', 'response', 'goodbye']);
  });

  it('cap every text field, so guided decoding ends within the token budget', () => {
    const props = actorJsonSchema.properties as Record<string, { maxLength?: number }>;
    expect(props.response?.maxLength).toBe(600);
    expect(props.thinking?.maxLength).toBe(400);
    const long = JSON.stringify({ thinking: 't', draft: 'd', response: 'a'.repeat(601), goodbye: false });
    const parsed = parseActorOutput(long);
    expect(!parsed.ok && parsed.problem).toBe('bad_shape');
  });
});
