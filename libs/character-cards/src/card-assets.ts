import { CardImportError } from './card-import-error';
import { type CharacterCard } from './card-schema';
import { type CardAssets, embeddedAssetPath, isSafeArchivePath } from './charx-archive';

const IMAGE_SIGNATURES: ReadonlyArray<{ type: string; matches: (bytes: Uint8Array) => boolean }> = [
  { type: 'image/png', matches: (b) => startsWith(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) },
  { type: 'image/jpeg', matches: (b) => startsWith(b, 0, [0xff, 0xd8, 0xff]) },
  { type: 'image/gif', matches: (b) => startsWith(b, 0, [0x47, 0x49, 0x46, 0x38]) },
  { type: 'image/webp', matches: (b) => startsWith(b, 0, ascii('RIFF')) && startsWith(b, 8, ascii('WEBP')) },
  { type: 'image/avif', matches: (b) => startsWith(b, 4, ascii('ftypavif')) },
];

/**
 * The image type of `bytes`, read from their first bytes, never from a name the uploader chose: a picture is
 * served with this type, so a file that is not one of these images is never served as an image (or as HTML).
 */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  return IMAGE_SIGNATURES.find((signature) => signature.matches(bytes))?.type;
}

/**
 * The archive path of a CHARX card's main icon: the `icon` asset named `main` (else the first `icon`) whose
 * `embeded://` file is in the archive and is an image. Undefined when the card has none.
 */
export function mainIconPath(card: CharacterCard, files: CardAssets): string | undefined {
  const icons = embeddedAssets(card).filter((asset) => asset.type === 'icon');
  const ordered = [
    ...icons.filter((icon) => icon.name === 'main'),
    ...icons.filter((icon) => icon.name !== 'main'),
  ];
  return ordered.find(({ path }) => {
    const file = files[path];
    return file !== undefined && sniffImageType(file) !== undefined;
  })?.path;
}

/** Refuses a card whose `embeded://` URIs name a path outside the archive (`../`, absolute, backslashes). */
export function assertSafeAssetUris(card: CharacterCard): void {
  for (const { uri, path } of embeddedAssets(card)) {
    if (!isSafeArchivePath(path)) {
      throw new CardImportError('bad_archive', `card asset URI names an unsafe path: ${uri}`);
    }
  }
}

function embeddedAssets(
  card: CharacterCard,
): Array<{ type: string; name: string; uri: string; path: string }> {
  const assets = card.spec === 'chara_card_v3' ? (card.data.assets ?? []) : [];
  return assets.flatMap(({ type, name, uri }) => {
    const path = embeddedAssetPath(uri);
    return path === undefined ? [] : [{ type, name, uri, path }];
  });
}

function startsWith(bytes: Uint8Array, offset: number, prefix: readonly number[]): boolean {
  return bytes.length >= offset + prefix.length && prefix.every((byte, i) => bytes[offset + i] === byte);
}

function ascii(text: string): number[] {
  return Array.from(text, (char) => char.charCodeAt(0));
}
