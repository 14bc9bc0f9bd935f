import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { CardImportError } from './card-import-error';
import { type CardLimits } from './limits';

/** Files of a CHARX archive other than `card.json`, by their path inside the zip (`assets/icon/images/main.png`). */
export type CardAssets = Record<string, Uint8Array>;

export const CHARX_CARD_PATH = 'card.json';
const ZIP_SIGNATURE = Uint8Array.of(0x50, 0x4b, 0x03, 0x04);

export function hasZipSignature(bytes: Uint8Array): boolean {
  return bytes.length >= ZIP_SIGNATURE.length && ZIP_SIGNATURE.every((byte, i) => bytes[i] === byte);
}

/**
 * Unzips a CHARX file. The declared sizes are checked before anything is inflated, and fflate never inflates
 * an entry past its declared size, so an archive cannot expand beyond `maxUncompressedBytes`.
 */
export function readCharxArchive(
  bytes: Uint8Array,
  limits: CardLimits,
): { cardJson: Uint8Array; assets: CardAssets } {
  let entries = 0;
  let expanded = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: ({ name, size, originalSize }) => {
        if (++entries > limits.maxEntries) {
          throw new CardImportError('too_large', `CHARX archive has more than ${limits.maxEntries} entries`);
        }
        expanded += Math.max(size, originalSize);
        if (expanded > limits.maxUncompressedBytes) {
          throw new CardImportError(
            'too_large',
            `CHARX archive expands to more than ${limits.maxUncompressedBytes} bytes (zip bomb guard)`,
          );
        }
        return !name.endsWith('/');
      },
    });
  } catch (error) {
    if (error instanceof CardImportError) throw error;
    throw new CardImportError('bad_archive', `CHARX archive is not a readable zip: ${describe(error)}`);
  }
  const { [CHARX_CARD_PATH]: cardJson, ...assets } = files;
  if (!cardJson)
    throw new CardImportError('bad_archive', `CHARX archive has no ${CHARX_CARD_PATH} at its root`);
  for (const path of Object.keys(assets)) {
    if (!isSafeArchivePath(path))
      throw new CardImportError('bad_archive', `CHARX entry has an unsafe path: ${path}`);
  }
  return { cardJson, assets };
}

export function writeCharxArchive(cardJson: string, assets: CardAssets): Uint8Array {
  const zippable: Zippable = { [CHARX_CARD_PATH]: [strToU8(cardJson), { level: 6 }] };
  for (const [path, data] of Object.entries(assets)) {
    if (path === CHARX_CARD_PATH || !isSafeArchivePath(path))
      throw new RangeError(`not a valid CHARX asset path: ${path}`);
    // Assets are images, audio and models, already compressed: stored as they are.
    zippable[path] = [data, { level: 0 }];
  }
  return zipSync(zippable);
}

/** Relative, `/`-separated, no `..`: an archive must not name files outside the place it is unpacked to. */
export function isSafeArchivePath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((segment) => segment !== '..' && segment !== '');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const EMBEDDED_SCHEMES = ['embeded://', 'embedded://'];

/** The archive path an asset URI points to (`embeded://assets/...`, the spec's spelling), if it is embedded. */
export function embeddedAssetPath(uri: string): string | undefined {
  const scheme = EMBEDDED_SCHEMES.find((prefix) => uri.startsWith(prefix));
  return scheme ? uri.slice(scheme.length) : undefined;
}
