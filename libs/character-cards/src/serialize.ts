import { type CardAsset, type CharacterCard, type CharacterCardV3 } from './card-schema';
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

/** Where a CHARX export puts the picture of a card that came as a PNG. */
export const CHARX_MAIN_ICON_PATH = 'assets/icon/images/main.png';

/**
 * The card as a CHARX archive: `card.json` at the root (always V3: a V2 card is upgraded, as the format
 * requires) and `assets` at their paths, which the card's `embeded://` URIs name. `pngPicture`, the image of a
 * PNG card, goes in as the main icon, in place of any other (in a PNG, the main icon is the PNG itself).
 */
export function writeCardToCharx(
  card: CharacterCard,
  assets: CardAssets = {},
  pngPicture?: Uint8Array,
): Uint8Array {
  const v3 = card.spec === 'chara_card_v3' ? card : upgradeV2(card);
  if (!pngPicture) return writeCharxArchive(JSON.stringify(v3), assets);
  const icon: CardAsset = {
    type: 'icon',
    uri: `embeded://${CHARX_MAIN_ICON_PATH}`,
    name: 'main',
    ext: 'png',
  };
  const others = (v3.data.assets ?? []).filter((asset) => asset.type !== 'icon' || asset.name !== 'main');
  const withIcon: CharacterCardV3 = { ...v3, data: { ...v3.data, assets: [icon, ...others] } };
  return writeCharxArchive(JSON.stringify(withIcon), { ...assets, [CHARX_MAIN_ICON_PATH]: pngPicture });
}
