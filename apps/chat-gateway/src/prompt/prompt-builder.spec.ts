import { characterCardSchema } from '../characters/character-card';
import { buildPrompt, estimateTokens } from './prompt-builder';

const card = characterCardSchema.parse({
  spec: 'chara_card_v2',
  data: {
    name: 'Mira',
    description: '{{char}} is a warm night-shift nurse who listens to {{user}}.',
    personality: 'gentle, curious',
    scenario: 'Late evening chat.',
    creator_notes: 'SECRET NOTE FOR HUMANS',
    first_mes: 'Hi {{user}}!',
  },
}).data;

const history = Array.from({ length: 40 }, (_, i) => ({
  role: i % 2 ? ('user' as const) : ('assistant' as const),
  content: `message number ${i} `.repeat(10),
}));

describe('buildPrompt', () => {
  it('puts the character first with macros filled in, and never includes creator notes', () => {
    const { messages } = buildPrompt({
      character: card,
      userName: 'Sam',
      history: [],
      userMessage: 'hey',
      budgetTokens: 2_000,
    });
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toContain('Mira is a warm night-shift nurse who listens to Sam.');
    expect(JSON.stringify(messages)).not.toContain('SECRET NOTE');
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'hey' });
  });

  it('keeps the most recent history that fits the budget, in order', () => {
    const { messages, droppedTurns, estimatedTokens } = buildPrompt({
      character: card,
      userName: 'Sam',
      history,
      userMessage: 'and now?',
      budgetTokens: 800,
    });
    expect(droppedTurns).toBeGreaterThan(0);
    const kept = messages.slice(1, -1);
    expect(kept).toEqual(history.slice(history.length - kept.length));
    expect(estimatedTokens).toBeLessThanOrEqual(800 * 0.9);
  });

  it('never truncates the character definition, even when history gets no room', () => {
    const { messages } = buildPrompt({
      character: card,
      userName: 'Sam',
      history,
      userMessage: 'x',
      budgetTokens: 10,
    });
    expect(messages).toHaveLength(2);
    expect(messages[0]?.content).toContain('gentle, curious');
  });

  it('adds persona guidance and safety instructions after the character', () => {
    const { messages } = buildPrompt({
      character: card,
      userName: 'Sam',
      history: [],
      userMessage: 'x',
      budgetTokens: 2_000,
      personaGuidance: 'The user prefers short replies.',
      safetyInstructions: 'If {{user}} is in danger, share crisis resources.',
    });
    const system = messages[0]?.content ?? '';
    expect(system.indexOf('gentle')).toBeLessThan(system.indexOf('short replies'));
    expect(system).toContain('If Sam is in danger');
  });

  it('estimates tokens from length', () => {
    expect(estimateTokens('a'.repeat(400))).toBe(104);
  });
});
