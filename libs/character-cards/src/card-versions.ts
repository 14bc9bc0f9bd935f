import { type CharacterBook, type CharacterCardV2, type CharacterCardV3 } from './card-schema';
import { parseDecorators } from './decorators';

export const V1_FIELDS = [
  'name',
  'description',
  'personality',
  'scenario',
  'first_mes',
  'mes_example',
] as const;

/** The notice spec v3 asks for on a V2 copy of a V3 card (the `chara` chunk beside `ccv3`). */
export const V3_BACKFILL_NOTICE =
  'This character card is Character Card V3, but it is loaded as a Character Card V2. ' +
  'Please use a Character Card V3 compatible application to use this character card properly.';

/**
 * A V1 card (flat fields, no `spec`) as V2 input, before validation. The V1 object stays at the root, as
 * SillyTavern keeps it, so nothing is lost; SillyTavern's V1 extras move to their V2 places.
 */
export function upgradeV1(v1: Record<string, unknown>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const field of V1_FIELDS) if (v1[field] !== undefined) data[field] = v1[field];
  if (typeof v1['creatorcomment'] === 'string') data['creator_notes'] = v1['creatorcomment'];
  if (Array.isArray(v1['tags'])) data['tags'] = v1['tags'];
  const extensions: Record<string, unknown> = {};
  for (const key of ['talkativeness', 'fav', 'world', 'depth_prompt']) {
    if (v1[key] !== undefined) extensions[key] = v1[key];
  }
  data['extensions'] = extensions;
  return { ...v1, spec: 'chara_card_v2', spec_version: '2.0', data };
}

/** Every V1 field present, as SillyTavern's validator requires: `{name, description}` alone is any JSON. */
export function looksLikeV1(value: Record<string, unknown>): boolean {
  return V1_FIELDS.every((field) => Object.hasOwn(value, field));
}

/** The V2 copy written beside a V3 card for V2-only readers: notice added, lorebook decorators removed. */
export function toV2Backfill(card: CharacterCardV3): CharacterCardV2 {
  const { creator_notes, character_book } = card.data;
  return {
    ...card,
    spec: 'chara_card_v2',
    spec_version: '2.0',
    data: {
      ...card.data,
      creator_notes: creator_notes ? `${V3_BACKFILL_NOTICE}\n\n${creator_notes}` : V3_BACKFILL_NOTICE,
      ...(character_book ? { character_book: withoutDecorators(character_book) } : {}),
    },
  };
}

function withoutDecorators(book: CharacterBook): CharacterBook {
  return {
    ...book,
    entries: book.entries.map((entry) => ({ ...entry, content: parseDecorators(entry.content).content })),
  };
}

/** V2 data as a V3 card (CHARX holds only V3); fields V3 adds are given their spec defaults. */
export function upgradeV2(card: CharacterCardV2): CharacterCardV3 {
  const groupOnly = card.data['group_only_greetings'];
  return {
    ...card,
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: { ...card.data, group_only_greetings: isStringArray(groupOnly) ? groupOnly : [] },
  };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
