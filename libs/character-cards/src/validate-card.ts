import { type z } from 'zod';
import { CardImportError } from './card-import-error';
import {
  type CharacterCard,
  characterCardV2Schema,
  characterCardV3Schema,
  SUPPORTED_SPECS,
} from './card-schema';
import { looksLikeV1, upgradeV1, V1_FIELDS } from './card-versions';

const ISSUES_IN_MESSAGE = 10;

/** A parsed JSON value as a V2 or V3 card (a V1 card is upgraded to V2); throws `CardImportError` naming why not. */
export function validateCard(value: unknown): CharacterCard {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CardImportError('not_a_card', 'not a character card: the JSON is not an object');
  }
  const card = value as Record<string, unknown>;
  const spec = card['spec'];
  if (spec === 'chara_card_v2') return parseWith(characterCardV2Schema, card);
  if (spec === 'chara_card_v3') return parseWith(characterCardV3Schema, card);
  if (spec === undefined) {
    if (looksLikeV1(card)) return parseWith(characterCardV2Schema, upgradeV1(card));
    throw new CardImportError(
      'not_a_card',
      `not a character card: no \`spec\` and not every V1 field (${V1_FIELDS.join(', ')})`,
    );
  }
  const shown = typeof spec === 'string' ? JSON.stringify(spec) : `a ${typeof spec}`;
  const hint = spec === 'lorebook_v3' ? ' (this is a lorebook, not a character card)' : '';
  throw new CardImportError(
    'unsupported_spec',
    `unsupported card spec ${shown}${hint}; supported: ${SUPPORTED_SPECS.join(', ')} and V1 cards`,
  );
}

function parseWith<S extends z.ZodType<CharacterCard>>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const shown = issues.slice(0, ISSUES_IN_MESSAGE).join('; ');
  const more = issues.length > ISSUES_IN_MESSAGE ? ` (and ${issues.length - ISSUES_IN_MESSAGE} more)` : '';
  throw new CardImportError('invalid_card', `invalid character card: ${shown}${more}`, issues);
}
