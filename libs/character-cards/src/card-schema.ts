import { z } from 'zod';

/*
 * Character Card V2 (`chara_card_v2`, malfoyslastname/character-card-spec-v2) and V3 (`chara_card_v3`,
 * kwaroran/character-card-spec-v3). Every object is `loose`: fields this schema does not know are kept verbatim,
 * because the specs forbid destroying them and a card must survive import → export → import unchanged.
 * Defaults are applied only where a spec names one: V1 text fields default to '' (spec v1), `extensions` to {}
 * (spec v2) and `group_only_greetings` to [] (spec v3 says it MUST be present).
 */

/** The specs' `Record<string, any>`: any JSON object, kept as is. */
export const extensionsSchema = z.record(z.string(), z.unknown());

const extensions = extensionsSchema.default({});
const text = z.string().default('');
const strings = z.array(z.string()).default([]);

export const lorebookEntrySchema = z
  .object({
    keys: z.array(z.string()),
    content: z.string(),
    extensions,
    enabled: z.boolean(),
    insertion_order: z.number(),
    case_sensitive: z.boolean().nullish(),
    /** V3: `keys` are regular expressions. SillyTavern writes `true` on every entry it exports. */
    use_regex: z.boolean().nullish(),
    constant: z.boolean().nullish(),
    name: z.string().nullish(),
    priority: z.number().nullish(),
    /** A number in V2, a string in V3. */
    id: z.union([z.number(), z.string()]).nullish(),
    comment: z.string().nullish(),
    selective: z.boolean().nullish(),
    secondary_keys: z.array(z.string()).nullish(),
    /** 'before_char' | 'after_char' in the specs; other tools write other values, which are kept. */
    position: z.union([z.string(), z.number()]).nullish(),
  })
  .loose();

export const characterBookSchema = z
  .object({
    name: z.string().nullish(),
    description: z.string().nullish(),
    scan_depth: z.number().nullish(),
    token_budget: z.number().nullish(),
    recursive_scanning: z.boolean().nullish(),
    extensions,
    entries: z.array(lorebookEntrySchema),
  })
  .loose();

const nonBlankName = z.string().refine((name) => name.trim().length > 0, 'must not be blank');

const cardDataV2Shape = {
  name: nonBlankName,
  description: text,
  personality: text,
  scenario: text,
  first_mes: text,
  mes_example: text,
  creator_notes: text,
  system_prompt: text,
  post_history_instructions: text,
  alternate_greetings: strings,
  character_book: characterBookSchema.nullish(),
  tags: strings,
  creator: text,
  /** A string in the spec; early V2 drafts used a number, which is kept. */
  character_version: z.union([z.string(), z.number()]).default(''),
  extensions,
};

export const cardAssetSchema = z
  .object({ type: z.string(), uri: z.string(), name: z.string(), ext: z.string() })
  .loose();

export const characterCardV2Schema = z
  .object({
    spec: z.literal('chara_card_v2'),
    spec_version: z.string().default('2.0'),
    data: z.object(cardDataV2Shape).loose(),
  })
  .loose();

export const characterCardV3Schema = z
  .object({
    spec: z.literal('chara_card_v3'),
    /** Newer versions must still import (spec v3), so any version string is accepted. */
    spec_version: z.string().default('3.0'),
    data: z
      .object({
        ...cardDataV2Shape,
        assets: z.array(cardAssetSchema).nullish(),
        nickname: z.string().nullish(),
        creator_notes_multilingual: z.record(z.string(), z.string()).nullish(),
        source: z.array(z.string()).nullish(),
        group_only_greetings: strings,
        creation_date: z.number().nullish(),
        modification_date: z.number().nullish(),
      })
      .loose(),
  })
  .loose();

export const characterCardSchema = z.discriminatedUnion('spec', [
  characterCardV2Schema,
  characterCardV3Schema,
]);

export type CharacterCardV2 = z.infer<typeof characterCardV2Schema>;
export type CharacterCardV3 = z.infer<typeof characterCardV3Schema>;
export type CharacterCard = z.infer<typeof characterCardSchema>;
export type CharacterCardData = CharacterCard['data'];
export type CharacterBook = z.infer<typeof characterBookSchema>;
export type LorebookEntry = z.infer<typeof lorebookEntrySchema>;
export type CardAsset = z.infer<typeof cardAssetSchema>;

export const SUPPORTED_SPECS = ['chara_card_v2', 'chara_card_v3'] as const;
