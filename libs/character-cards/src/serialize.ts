import { type CharacterCard } from './card-schema';
import { toV2Backfill, upgradeV2 } from './card-versions';
import { type CardAssets, writeCharxArchive } from './charx-archive';
import { CARD_KEYWORDS, replaceCardChunks } from './png-card';
import { createSolidPng } from './solid-png';

/** The card as a `.json` file; everything it holds is written, unknown fields and extensions included. */
export function cardToJson(card: CharacterCard, indent = 2): string {
  return JSON.stringify(card, null, indent);
}

/**
 * The card embedded in a PNG: in `basePng` (the avatar; its other chunks are kept) or, without one, in a plain
 * 400x600 image. A V2 card goes in `chara`; a V3 card in `ccv3`, with a V2 copy in `chara` for V2-only readers.
 */
export function writeCardToPng(card: CharacterCard, basePng?: Uint8Array): Uint8Array {
  const chunks =
    card.spec === 'chara_card_v3'
      ? [
          { keyword: CARD_KEYWORDS.v2, json: JSON.stringify(toV2Backfill(card)) },
          { keyword: CARD_KEYWORDS.v3, json: JSON.stringify(card) },
        ]
      : [{ keyword: CARD_KEYWORDS.v2, json: JSON.stringify(card) }];
  return replaceCardChunks(basePng ?? createSolidPng(), chunks);
}

/**
 * The card as a CHARX archive: `card.json` at the root (always V3: a V2 card is upgraded, as the format
 * requires) and `assets` at their paths, which the card's `embeded://` URIs name.
 */
export function writeCardToCharx(card: CharacterCard, assets: CardAssets = {}): Uint8Array {
  const v3 = card.spec === 'chara_card_v3' ? card : upgradeV2(card);
  return writeCharxArchive(JSON.stringify(v3), assets);
}
