import { z } from 'zod';

/**
 * Character Card V2/V3 (`chara_card_v2` / `chara_card_v3`). Unknown fields are kept (`loose`), so a card survives
 * a round trip byte-for-byte in meaning, extensions included.
 */
const cardData = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().default(''),
    personality: z.string().default(''),
    scenario: z.string().default(''),
    first_mes: z.string().default(''),
    mes_example: z.string().default(''),
    creator_notes: z.string().default(''),
    system_prompt: z.string().default(''),
    post_history_instructions: z.string().default(''),
    alternate_greetings: z.array(z.string()).default([]),
    tags: z.array(z.string()).default([]),
    creator: z.string().default(''),
    character_version: z.string().default(''),
    extensions: z.record(z.string(), z.unknown()).default({}),
  })
  .loose();

export const characterCardSchema = z
  .object({
    spec: z.enum(['chara_card_v2', 'chara_card_v3']),
    spec_version: z.string().default('2.0'),
    data: cardData,
  })
  .loose();

export type CharacterCard = z.infer<typeof characterCardSchema>;
export type CharacterCardData = CharacterCard['data'];

/** `{{char}}`, `{{user}}` (case-insensitive), as SillyTavern substitutes them. */
export function applyMacros(text: string, names: { char: string; user: string }): string {
  return text.replace(/\{\{\s*(char|user)\s*\}\}/gi, (_, which: string) =>
    which.toLowerCase() === 'char' ? names.char : names.user,
  );
}
