import { crc32 as zlibCrc32 } from 'node:zlib';

/** CRC-32 (ISO 3309, the polynomial PNG and zip share) of the parts one after another, as a PNG chunk's CRC. */
export function crc32(...parts: Uint8Array[]): number {
  return parts.reduce((crc, part) => zlibCrc32(part, crc), 0);
}
