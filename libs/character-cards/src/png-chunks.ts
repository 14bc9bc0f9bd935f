import { CardImportError } from './card-import-error';
import { crc32 } from './crc32';

export const PNG_SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);
const MAX_CHUNK_LENGTH = 0x7fffffff;

export interface PngChunk {
  /** Four ASCII letters, e.g. `IHDR`, `tEXt`, `IEND`. */
  type: string;
  data: Uint8Array;
}

export function hasPngSignature(bytes: Uint8Array): boolean {
  return bytes.length >= PNG_SIGNATURE.length && PNG_SIGNATURE.every((byte, i) => bytes[i] === byte);
}

/** Every chunk up to and including IEND, each CRC checked; bytes after IEND are ignored. */
export function readPngChunks(bytes: Uint8Array): PngChunk[] {
  if (!hasPngSignature(bytes)) throw new CardImportError('not_a_card', 'not a PNG file (no PNG signature)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let offset = PNG_SIGNATURE.length;
  for (;;) {
    if (offset + 8 > bytes.length) throw truncated(chunks);
    const length = view.getUint32(offset);
    const typeBytes = bytes.subarray(offset + 4, offset + 8);
    const type = String.fromCharCode(...typeBytes);
    if (length > MAX_CHUNK_LENGTH)
      throw new CardImportError('truncated_png', `PNG chunk ${type} is too long`);
    const dataStart = offset + 8;
    const dataEnd = dataStart + length;
    if (dataEnd + 4 > bytes.length) throw truncated(chunks);
    const data = bytes.subarray(dataStart, dataEnd);
    if (view.getUint32(dataEnd) !== crc32(typeBytes, data)) {
      throw new CardImportError(
        'bad_crc',
        `PNG chunk ${type} at byte ${offset} has a bad CRC (corrupted file)`,
      );
    }
    chunks.push({ type, data });
    if (type === 'IEND') return chunks;
    offset = dataEnd + 4;
  }
}

function truncated(chunks: readonly PngChunk[]): CardImportError {
  return new CardImportError(
    'truncated_png',
    `PNG file is truncated after ${chunks.length} chunk(s), before IEND`,
  );
}

export function encodePng(chunks: readonly PngChunk[]): Uint8Array {
  const size = chunks.reduce((total, chunk) => total + 12 + chunk.data.length, PNG_SIGNATURE.length);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(PNG_SIGNATURE);
  let offset = PNG_SIGNATURE.length;
  for (const { type, data } of chunks) {
    const typeBytes = Uint8Array.from(type, (char) => char.charCodeAt(0));
    view.setUint32(offset, data.length);
    out.set(typeBytes, offset + 4);
    out.set(data, offset + 8);
    view.setUint32(offset + 8 + data.length, crc32(typeBytes, data));
    offset += 12 + data.length;
  }
  return out;
}
