import { assertSafeAssetUris, mainIconPath } from './card-assets';
import { CardImportError } from './card-import-error';
import { type CharacterCard } from './card-schema';
import { type CardAssets, hasZipSignature, readCharxArchive } from './charx-archive';
import { type CardLimits, resolveLimits } from './limits';
import { cardImageOf, readCardTextFromPng } from './png-card';
import { hasPngSignature } from './png-chunks';
import { validateCard } from './validate-card';

export type CardFormat = 'json' | 'png' | 'charx';

export interface ImportedCard {
  card: CharacterCard;
  format: CardFormat;
  /**
   * PNG only: the picture, i.e. the file without its card chunks; `writeCardToPng(card, image)` gives every other
   * chunk back byte for byte.
   */
  image?: Uint8Array;
  /** CHARX only: every file in the archive but `card.json`, by path (`assets/icon/images/main.png`). */
  assets?: CardAssets;
  /** CHARX only: the path in `assets` of the card's main icon, when it names one the archive holds. */
  mainIcon?: string;
}

/** A card from its JSON text or an already parsed value; V1 cards come back upgraded to V2. */
export function parseCardJson(input: string | object, limits: Partial<CardLimits> = {}): CharacterCard {
  if (typeof input !== 'string') return validateCard(input);
  checkSize(Buffer.byteLength(input, 'utf8'), resolveLimits(limits));
  let value: unknown;
  try {
    value = JSON.parse(input.replace(/^\uFEFF/, ''));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new CardImportError('invalid_card', `character card is not valid JSON: ${reason}`);
  }
  return validateCard(value);
}

/** The card in a PNG's `ccv3` (preferred) or `chara` tEXt chunk; every chunk's CRC is checked. */
export function readCardFromPng(bytes: Uint8Array, limits: Partial<CardLimits> = {}): CharacterCard {
  const resolved = resolveLimits(limits);
  checkSize(bytes.length, resolved);
  return parseCardJson(readCardTextFromPng(bytes).json, resolved);
}

/** The card in a CHARX archive's `card.json`, with the archive's other files and the main icon's path. */
export function readCardFromCharx(
  bytes: Uint8Array,
  limits: Partial<CardLimits> = {},
): { card: CharacterCard; assets: CardAssets; mainIcon?: string } {
  const resolved = resolveLimits(limits);
  checkSize(bytes.length, resolved);
  const { cardJson, assets } = readCharxArchive(bytes, resolved);
  const card = parseCardJson(Buffer.from(cardJson).toString('utf8'), {
    ...resolved,
    maxBytes: resolved.maxUncompressedBytes,
  });
  assertSafeAssetUris(card);
  const mainIcon = mainIconPath(card, assets);
  return mainIcon === undefined ? { card, assets } : { card, assets, mainIcon };
}

/** Reads an uploaded card file, whatever its format: PNG, CHARX (zip) or JSON, told apart by content. */
export function importCard(
  bytes: Uint8Array,
  filename?: string,
  limits: Partial<CardLimits> = {},
): ImportedCard {
  const resolved = resolveLimits(limits);
  checkSize(bytes.length, resolved);
  if (hasPngSignature(bytes)) {
    return { card: readCardFromPng(bytes, resolved), format: 'png', image: cardImageOf(bytes) };
  }
  if (hasZipSignature(bytes)) return { ...readCardFromCharx(bytes, resolved), format: 'charx' };
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (/^\uFEFF?\s*[{[]/.test(text)) return { card: parseCardJson(text, resolved), format: 'json' };
  throw new CardImportError(
    'not_a_card',
    `${filename ?? 'the file'} is not a character card: expected a PNG, a CHARX (zip) or JSON file`,
  );
}

function checkSize(size: number, limits: CardLimits): void {
  if (size > limits.maxBytes) {
    throw new CardImportError(
      'too_large',
      `card file is ${size} bytes; the limit is ${limits.maxBytes} bytes`,
    );
  }
}
