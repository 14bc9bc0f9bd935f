import { CardImportError } from './card-import-error';
import { encodePng, type PngChunk, readPngChunks } from './png-chunks';
import { decodeTextChunk, encodeTextChunk } from './png-text';

/** The `tEXt` keywords cards live under: V2 in `chara`, V3 in `ccv3` (read first when both are there). */
export const CARD_KEYWORDS = { v2: 'chara', v3: 'ccv3' } as const;

/** The card JSON embedded in a PNG, decoded from base64 (the newest version present). */
export function readCardTextFromPng(bytes: Uint8Array): { keyword: string; json: string } {
  const texts = readPngChunks(bytes).flatMap((chunk) => decodeTextChunk(chunk) ?? []);
  const byKeyword = (keyword: string) => texts.find((text) => text.keyword.toLowerCase() === keyword);
  const found = byKeyword(CARD_KEYWORDS.v3) ?? byKeyword(CARD_KEYWORDS.v2);
  if (!found) {
    throw new CardImportError(
      'not_a_card',
      'PNG has no character card in it (no `chara` or `ccv3` tEXt chunk)',
    );
  }
  return { keyword: found.keyword, json: decodeBase64Json(found.text) };
}

function decodeBase64Json(text: string): string {
  const trimmed = text.trim();
  // A few old tools wrote the JSON itself rather than its base64.
  if (trimmed.startsWith('{')) return trimmed;
  return Buffer.from(trimmed, 'base64').toString('utf8');
}

const CARD_KEYWORD_SET = new Set<string>(Object.values(CARD_KEYWORDS));

function isCardChunk(chunk: PngChunk): boolean {
  return CARD_KEYWORD_SET.has(decodeTextChunk(chunk)?.keyword.toLowerCase() ?? '');
}

/**
 * The picture of a PNG card: every chunk but the card's `chara`/`ccv3` tEXt chunks, in order and byte for byte,
 * so `writeCardToPng(card, image)` gives the original file back. Refuses a PNG that is not an image (no IHDR
 * first, no IDAT), since it is served as one.
 */
export function cardImageOf(png: Uint8Array): Uint8Array {
  const chunks = readPngChunks(png);
  const [first] = chunks;
  if (first?.type !== 'IHDR' || first.data.length !== 13 || !chunks.some((chunk) => chunk.type === 'IDAT')) {
    throw new CardImportError(
      'bad_image',
      'PNG has no image in it (IHDR must come first, and IDAT is missing)',
    );
  }
  return encodePng(chunks.filter((chunk) => !isCardChunk(chunk)));
}

/**
 * `png` with its card chunks replaced: old `chara`/`ccv3` chunks removed (a stale `ccv3` would win over a new
 * `chara`), the new ones inserted before IEND, every other chunk kept byte for byte.
 */
export function replaceCardChunks(
  png: Uint8Array,
  cards: ReadonlyArray<{ keyword: string; json: string }>,
): Uint8Array {
  const kept = readPngChunks(png).filter((chunk) => !isCardChunk(chunk));
  const added: PngChunk[] = cards.map(({ keyword, json }) =>
    encodeTextChunk(keyword, Buffer.from(json, 'utf8').toString('base64')),
  );
  const end = kept.length - 1; // readPngChunks always ends with IEND
  return encodePng([...kept.slice(0, end), ...added, ...kept.slice(end)]);
}
