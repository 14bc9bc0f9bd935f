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

/**
 * `png` with its card chunks replaced: old `chara`/`ccv3` chunks removed (a stale `ccv3` would win over a new
 * `chara`), the new ones inserted before IEND, every other chunk kept byte for byte.
 */
export function replaceCardChunks(
  png: Uint8Array,
  cards: ReadonlyArray<{ keyword: string; json: string }>,
): Uint8Array {
  const keywords = new Set<string>(Object.values(CARD_KEYWORDS));
  const kept = readPngChunks(png).filter(
    (chunk) => !keywords.has(decodeTextChunk(chunk)?.keyword.toLowerCase() ?? ''),
  );
  const added: PngChunk[] = cards.map(({ keyword, json }) =>
    encodeTextChunk(keyword, Buffer.from(json, 'utf8').toString('base64')),
  );
  const end = kept.length - 1; // readPngChunks always ends with IEND
  return encodePng([...kept.slice(0, end), ...added, ...kept.slice(end)]);
}
