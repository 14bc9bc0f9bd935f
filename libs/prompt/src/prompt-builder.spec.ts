import { characterCardSchema } from '@echoloop/character-cards';
import { buildPrompt, estimateTokens } from './prompt-builder';

const card = characterCardSchema.parse({
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira',
    description: '{{char}} is a warm night-shift nurse who listens to {{user}}.',
    personality: 'gentle, curious',
    scenario: 'Late evening chat.',
    creator_notes: 'SECRET NOTE FOR HUMANS',
    first_mes: 'Hi {{user}}!',
    system_prompt: '{{original}} Never break character.',
    post_history_instructions: 'Keep replies under three sentences, {{user}} is tired.',
    character_book: {
      entries: [
        {
          keys: ['hospital'],
          content: 'St. Aurel is the hospital where {{char}} works.',
          enabled: true,
          insertion_order: 1,
        },
        { keys: ['dragon'], content: 'No dragons here.', enabled: true, insertion_order: 2 },
      ],
    },
  },
});

const history = Array.from({ length: 40 }, (_, i) => ({
  role: i % 2 ? ('user' as const) : ('assistant' as const),
  content: `message number ${i} `.repeat(10),
}));

const build = (overrides: Partial<Parameters<typeof buildPrompt>[0]> = {}) =>
  buildPrompt({ card, userName: 'Sam', history: [], userMessage: 'hey', budgetTokens: 2_000, ...overrides });

describe('buildPrompt', () => {
  it('puts the character first with macros filled in, and never includes creator notes', () => {
    const { messages } = build();
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toMatch(
      /^You are Mira\. Stay in character and reply to Sam as Mira would\. Never break/,
    );
    expect(messages[0]?.content).toContain('Mira is a warm night-shift nurse who listens to Sam.');
    expect(JSON.stringify(messages)).not.toContain('SECRET NOTE');
  });

  it('ends with the post-history instructions, then the user message', () => {
    const { messages } = build();
    expect(messages.slice(-2)).toEqual([
      { role: 'system', content: 'Keep replies under three sentences, Sam is tired.' },
      { role: 'user', content: 'hey' },
    ]);
  });

  it('inserts lorebook entries whose keys appear in the conversation', () => {
    const { messages, lorebookEntries } = build({ userMessage: 'Rough night at the hospital' });
    expect(lorebookEntries).toEqual([0]);
    expect(messages[0]?.content).toContain('St. Aurel is the hospital where Mira works.');
    expect(messages[0]?.content).not.toContain('dragons');
  });

  it('keeps the most recent history that fits the budget, in order', () => {
    const { messages, droppedTurns, estimatedTokens } = build({
      history,
      userMessage: 'and now?',
      budgetTokens: 800,
    });
    expect(droppedTurns).toBeGreaterThan(0);
    const kept = messages.slice(1, -2);
    expect(kept).toEqual(history.slice(history.length - kept.length));
    expect(estimatedTokens).toBeLessThanOrEqual(800 * 0.9);
  });

  it('never truncates the character definition, even when history gets no room', () => {
    const { messages } = build({ history, userMessage: 'x', budgetTokens: 10 });
    expect(messages).toHaveLength(3);
    expect(messages[0]?.content).toContain('gentle, curious');
  });

  it('adds persona guidance and safety instructions after the character', () => {
    const system =
      build({
        personaGuidance: 'The user prefers short replies.',
        safetyInstructions: 'If {{user}} is in danger, share crisis resources.',
      }).messages[0]?.content ?? '';
    expect(system.indexOf('gentle')).toBeLessThan(system.indexOf('short replies'));
    expect(system).toContain('If Sam is in danger');
  });

  it('keeps less history when the endpoint counts more tokens than estimated', () => {
    const plain = build({ history, budgetTokens: 1_500 });
    const calibrated = build({ history, budgetTokens: 1_500, tokenFactor: 2 });
    expect(calibrated.droppedTurns).toBeGreaterThan(plain.droppedTurns);
    expect(calibrated.estimatedTokens).toBeLessThanOrEqual(1_500 * 0.9);
  });

  it('carries the rolling memory after the character definition', () => {
    const system = build({ memory: 'Sam has a cat called Miso.' }).messages[0]?.content ?? '';
    expect(system).toContain(
      'What you remember from earlier in this conversation:\nSam has a cat called Miso.',
    );
    expect(system.indexOf('gentle')).toBeLessThan(system.indexOf('Miso'));
  });

  it('estimates tokens from length', () => {
    expect(estimateTokens('a'.repeat(400))).toBe(104);
  });
});
