import { type PngChunk } from './png-chunks';

/** A PNG `tEXt` chunk: a Latin-1 keyword, a NUL, then Latin-1 text (cards keep base64 there, so ASCII). */
export interface PngText {
  keyword: string;
  text: string;
}

export function decodeTextChunk(chunk: PngChunk): PngText | undefined {
  if (chunk.type !== 'tEXt') return undefined;
  const separator = chunk.data.indexOf(0);
  if (separator < 0) return undefined;
  const latin1 = Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
  return {
    keyword: latin1.toString('latin1', 0, separator),
    text: latin1.toString('latin1', separator + 1),
  };
}

export function encodeTextChunk(keyword: string, text: string): PngChunk {
  return { type: 'tEXt', data: Buffer.from(`${keyword}\0${text}`, 'latin1') };
}
