import { inflateSync } from 'node:zlib';
import { crc32 } from './crc32';
import { expectImportError } from './fixtures/expect-import-error';
import { fixtureText } from './fixtures/fixtures';
import { importCard, parseCardJson, readCardFromPng } from './parse';
import { encodePng, readPngChunks } from './png-chunks';
import { decodeTextChunk, encodeTextChunk } from './png-text';
import { writeCardToPng } from './serialize';
import { createSolidPng } from './solid-png';

const v2 = parseCardJson(fixtureText('v2-card.json'));
const base64 = (json: string) => Buffer.from(json, 'utf8').toString('base64');

function textChunks(png: Uint8Array): Record<string, string> {
  const texts = readPngChunks(png).flatMap((chunk) => decodeTextChunk(chunk) ?? []);
  return Object.fromEntries(texts.map(({ keyword, text }) => [keyword, text]));
}

describe('crc32', () => {
  it('matches the standard check value', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
    expect(crc32()).toBe(0);
  });
});

describe('createSolidPng', () => {
  it('makes a valid 400x600 RGB image by default', () => {
    const png = createSolidPng();
    const [ihdr, idat, iend] = readPngChunks(png);
    expect([ihdr?.type, idat?.type, iend?.type]).toEqual(['IHDR', 'IDAT', 'IEND']);
    const header = Buffer.from(ihdr?.data ?? []);
    expect([header.readUInt32BE(0), header.readUInt32BE(4), header[8], header[9]]).toEqual([400, 600, 8, 2]);
    expect(inflateSync(idat?.data ?? new Uint8Array()).length).toBe(600 * (1 + 400 * 3));
    expect(png.length).toBeLessThan(10_000);
  });
});

describe('readCardFromPng', () => {
  it('reads a `chara` chunk written by another tool, among other text chunks', () => {
    const json = fixtureText('v2-card.json');
    const [ihdr, idat, iend] = readPngChunks(createSolidPng({ width: 1, height: 1, rgb: [0, 0, 0] }));
    const png = encodePng([
      ihdr!,
      encodeTextChunk('Software', 'SomePainter 2.1'),
      encodeTextChunk('Chara', base64(json)), // keywords are compared case-insensitively, as SillyTavern does
      idat!,
      iend!,
    ]);
    expect(readCardFromPng(png)).toStrictEqual(v2);
  });

  it('prefers `ccv3` over `chara`', () => {
    const v3Json = fixtureText('v3-card.json');
    const png = writeCardToPng(v2);
    const withV3 = encodePng(
      readPngChunks(png).flatMap((chunk) =>
        chunk.type === 'IEND' ? [encodeTextChunk('ccv3', base64(v3Json)), chunk] : [chunk],
      ),
    );
    expect(readCardFromPng(withV3)).toStrictEqual(parseCardJson(v3Json));
  });

  it('refuses a PNG without a card', () => {
    expectImportError(() => readCardFromPng(createSolidPng()), 'not_a_card', /no `chara` or `ccv3`/);
    expectImportError(() => importCard(createSolidPng(), 'cat.png'), 'not_a_card');
  });

  it('refuses a truncated PNG', () => {
    const png = writeCardToPng(v2);
    for (const length of [8, 20, png.length - 30, png.length - 1]) {
      expectImportError(() => readCardFromPng(png.subarray(0, length)), 'truncated_png', /truncated/);
    }
  });

  it('refuses a PNG whose chunk CRC does not match', () => {
    const png = writeCardToPng(v2);
    const corrupted = png.slice();
    const textStart = Buffer.from(png).indexOf('tEXt') + 10;
    corrupted[textStart] = (corrupted[textStart] ?? 0) ^ 0xff;
    expectImportError(() => importCard(corrupted), 'bad_crc', /tEXt .*bad CRC/);
  });

  it('refuses a card chunk that is not base64 of JSON', () => {
    const png = writeCardToPng(v2);
    const broken = encodePng(
      readPngChunks(png).map((chunk) =>
        decodeTextChunk(chunk)?.keyword === 'chara' ? encodeTextChunk('chara', '!!!not base64!!!') : chunk,
      ),
    );
    expectImportError(() => readCardFromPng(broken), 'invalid_card', /not valid JSON/);
  });

  it('refuses a PNG over the size limit', () => {
    expectImportError(() => readCardFromPng(writeCardToPng(v2), { maxBytes: 1000 }), 'too_large');
  });
});

describe('writeCardToPng', () => {
  it('writes a V2 card in `chara` only', () => {
    const chunks = textChunks(writeCardToPng(v2));
    expect(Object.keys(chunks)).toEqual(['chara']);
    expect(JSON.parse(Buffer.from(chunks['chara'] ?? '', 'base64').toString('utf8'))).toStrictEqual(v2);
  });

  it('keeps the base image and its other chunks, replacing old card chunks', () => {
    const v3Json = fixtureText('v3-card.json');
    const base = encodePng(
      readPngChunks(createSolidPng({ width: 2, height: 3, rgb: [255, 0, 0] })).flatMap((chunk) =>
        chunk.type === 'IEND'
          ? [encodeTextChunk('ccv3', base64(v3Json)), encodeTextChunk('Comment', 'keep me'), chunk]
          : [chunk],
      ),
    );
    const written = writeCardToPng(v2, base);
    const types = readPngChunks(written).map((chunk) => chunk.type);
    expect(types).toEqual(['IHDR', 'IDAT', 'tEXt', 'tEXt', 'IEND']);
    expect(textChunks(written)).toEqual({ Comment: 'keep me', chara: expect.any(String) });
    expect(readCardFromPng(written)).toStrictEqual(v2); // the stale ccv3 is gone, so it cannot win
    expect(readPngChunks(written)[1]).toEqual(readPngChunks(base)[1]);
  });

  it('refuses a base image that is not a PNG', () => {
    expectImportError(() => writeCardToPng(v2, new Uint8Array([1, 2, 3])), 'not_a_card', /not a PNG/);
  });
});
