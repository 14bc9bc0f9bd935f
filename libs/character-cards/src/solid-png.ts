import { deflateSync } from 'node:zlib';
import { encodePng } from './png-chunks';

export interface SolidPngOptions {
  width: number;
  height: number;
  rgb: readonly [number, number, number];
}

/** The usual portrait size of a card avatar (SillyTavern crops to 400x600), in a neutral grey. */
export const DEFAULT_CARD_IMAGE: Readonly<SolidPngOptions> = Object.freeze({
  width: 400,
  height: 600,
  rgb: [0x8a, 0x8f, 0x98] as const,
});

/** A valid 8-bit RGB PNG of one colour: the image a card is embedded in when no avatar is given. */
export function createSolidPng({ width, height, rgb }: SolidPngOptions = DEFAULT_CARD_IMAGE): Uint8Array {
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, no filter method, no interlace
  const rowLength = 1 + width * 3; // filter byte "none", then the pixels
  const row = new Uint8Array(rowLength);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = new Uint8Array(rowLength * height);
  for (let y = 0; y < height; y++) raw.set(row, y * rowLength);
  return encodePng([
    { type: 'IHDR', data: header },
    { type: 'IDAT', data: deflateSync(raw) },
    { type: 'IEND', data: new Uint8Array(0) },
  ]);
}
