import { strToU8, zipSync } from 'fflate';
import { type CharacterCard, type CharacterCardV3 } from './card-schema';
import { mainIconPath, sniffImageType } from './card-assets';
import { expectImportError } from './fixtures/expect-import-error';
import { fixtureText } from './fixtures/fixtures';
import { cardTextChunk, IEND, rawPng, realWorldImageChunks } from '@echoloop/testing';
import { importCard, parseCardJson } from './parse';
import { CHARX_MAIN_ICON_PATH, writeCardToCharx, writeCardToPng } from './serialize';

const v2 = parseCardJson(fixtureText('v2-card.json'));
const v3 = parseCardJson(fixtureText('v3-card.json')) as CharacterCardV3;

/** A PNG's chunks as the raw byte ranges of the file (length, type, data, CRC), read without the library. */
function rawChunks(png: Uint8Array): Array<{ type: string; keyword: string; bytes: Buffer }> {
  const file = Buffer.from(png);
  const chunks = [];
  for (let offset = 8; offset < file.length; ) {
    const end = offset + 12 + file.readUInt32BE(offset);
    const bytes = file.subarray(offset, end);
    const type = bytes.toString('latin1', 4, 8);
    const keyword = type === 'tEXt' ? bytes.toString('latin1', 8, bytes.indexOf(0, 8)) : '';
    chunks.push({ type, keyword, bytes });
    offset = end;
  }
  return chunks;
}

const isCard = (chunk: { type: string; keyword: string }) =>
  chunk.type === 'tEXt' && ['chara', 'ccv3'].includes(chunk.keyword.toLowerCase());

describe('the picture of a PNG card', () => {
  const { head, idats, tail } = realWorldImageChunks();
  const picture = rawPng([...head, ...idats, ...tail, IEND]);
  // Old card chunks of both versions, among the image's own: a card someone has already edited elsewhere.
  const uploaded = rawPng([
    ...head,
    cardTextChunk('chara', v2),
    ...idats,
    cardTextChunk('ccv3', v3),
    ...tail,
    IEND,
  ]);

  it('is the file without its card chunks, every other chunk byte for byte and in order', () => {
    const imported = importCard(uploaded, 'kaito.png');
    expect(imported.card).toStrictEqual(v3);
    expect(Buffer.from(imported.image ?? []).equals(picture)).toBe(true);
  });

  it('comes back byte-identical on export, with fresh card chunks replacing the old ones', () => {
    const image = importCard(uploaded).image;
    const edited: CharacterCardV3 = { ...v3, data: { ...v3.data, personality: 'calmer now' } };
    const exported = writeCardToPng(edited, image);

    const chunks = rawChunks(exported);
    const imageChunks = chunks.filter((chunk) => !isCard(chunk)).map((chunk) => chunk.bytes);
    expect(Buffer.concat(imageChunks).equals(picture.subarray(8))).toBe(true);
    expect(chunks.filter(isCard).map((chunk) => chunk.keyword)).toEqual(['chara', 'ccv3']);

    const again = importCard(exported);
    expect(again.card).toStrictEqual(edited);
    expect(Buffer.from(again.image ?? []).equals(picture)).toBe(true);
  });

  it('keeps a V2 export to one `chara` chunk, dropping the stale `ccv3` that would win over it', () => {
    const exported = writeCardToPng(v2, uploaded);
    expect(
      rawChunks(exported)
        .filter(isCard)
        .map((chunk) => chunk.keyword),
    ).toEqual(['chara']);
    expect(importCard(exported).card).toStrictEqual(v2);
  });

  it('becomes the main icon of a CHARX export, in place of the icon the PNG stood for', () => {
    const image = importCard(uploaded).image;
    const charx = importCard(writeCardToCharx(v3, {}, image));
    expect(charx.mainIcon).toBe(CHARX_MAIN_ICON_PATH);
    expect(Buffer.from(charx.assets?.[CHARX_MAIN_ICON_PATH] ?? []).equals(picture)).toBe(true);
    const assets = charx.card.spec === 'chara_card_v3' ? charx.card.data.assets : undefined;
    expect(assets?.filter((asset) => asset.type === 'icon')).toEqual([
      { type: 'icon', uri: `embeded://${CHARX_MAIN_ICON_PATH}`, name: 'main', ext: 'png' },
    ]);
    expect(assets).toHaveLength(v3.data.assets?.length ?? 0);
    expect(importCard(writeCardToCharx(v2, {}, image)).mainIcon).toBe(CHARX_MAIN_ICON_PATH);
  });

  it('refuses a PNG that holds a card but no image', () => {
    const noImage = rawPng([cardTextChunk('chara', v2), IEND]);
    expectImportError(() => importCard(noImage), 'bad_image', /IHDR must come first/);
    const noPixels = rawPng([...head, cardTextChunk('chara', v2), IEND]);
    expectImportError(() => importCard(noPixels), 'bad_image', /IDAT is missing/);
  });

  it('refuses a corrupted or cut-off image', () => {
    const corrupted = Buffer.from(uploaded);
    const idat = corrupted.indexOf('IDAT');
    corrupted[idat + 6] = (corrupted[idat + 6] ?? 0) ^ 0x01;
    expectImportError(() => importCard(corrupted), 'bad_crc', /IDAT .*bad CRC/);
    expectImportError(() => importCard(uploaded.subarray(0, idat + 5)), 'truncated_png');
  });
});

describe('the pictures of a CHARX card', () => {
  const icon = rawPng([...Object.values(realWorldImageChunks()).flat(), IEND]);
  const webp = Uint8Array.of(...strToU8('RIFF'), 0, 0, 0, 0, ...strToU8('WEBPVP8 '));
  const withAssets = (assets: unknown[]): CharacterCard =>
    ({ ...v3, data: { ...v3.data, assets } }) as CharacterCard;
  const charx = (card: unknown, files: Record<string, Uint8Array>) =>
    zipSync({ 'card.json': strToU8(JSON.stringify(card)), ...files });

  it('keeps every asset byte for byte and finds the main icon the card names', () => {
    const files = { 'assets/icon/images/main.png': icon, 'assets/background/images/alley.webp': webp };
    const imported = importCard(writeCardToCharx(v3, files), 'kaito.charx');
    expect(imported.assets).toEqual(files);
    expect(imported.mainIcon).toBe('assets/icon/images/main.png');
  });

  it('prefers the icon named `main`, and skips icons that are missing or not images', () => {
    const icons = (names: string[]) =>
      names.map((name) => ({ type: 'icon', uri: `embeded://assets/icon/${name}.bin`, name, ext: 'png' }));
    const card = withAssets(icons(['side', 'main']));
    const files = { 'assets/icon/side.bin': webp, 'assets/icon/main.bin': icon };
    expect(mainIconPath(card, files)).toBe('assets/icon/main.bin');
    expect(mainIconPath(card, { ...files, 'assets/icon/main.bin': strToU8('<html>') })).toBe(
      'assets/icon/side.bin',
    );
    expect(mainIconPath(card, {})).toBeUndefined();
    expect(mainIconPath(v2, files)).toBeUndefined();
  });

  it.each([
    ['a parent folder', 'embeded://../../etc/passwd'],
    ['an absolute path', 'embeded:///etc/passwd'],
    ['a backslash', 'embeded://assets\\..\\..\\x.png'],
  ])('refuses a card whose asset URI names %s', (_name, uri) => {
    const card = withAssets([{ type: 'icon', uri, name: 'main', ext: 'png' }]);
    expectImportError(() => importCard(charx(card, {})), 'bad_archive', /unsafe path/);
  });

  it('refuses an archive entry with an absolute path', () => {
    expectImportError(() => importCard(charx(v3, { '/etc/cron.d/x': icon })), 'bad_archive', /unsafe path/);
  });
});

describe('sniffImageType', () => {
  it('tells images by their first bytes, never by name', () => {
    expect(sniffImageType(writeCardToPng(v2))).toBe('image/png');
    expect(sniffImageType(Uint8Array.of(0xff, 0xd8, 0xff, 0xe0))).toBe('image/jpeg');
    expect(sniffImageType(strToU8('GIF89a'))).toBe('image/gif');
    expect(sniffImageType(Uint8Array.of(...strToU8('RIFF'), 1, 2, 3, 4, ...strToU8('WEBP')))).toBe(
      'image/webp',
    );
    expect(sniffImageType(Uint8Array.of(0, 0, 0, 28, ...strToU8('ftypavif')))).toBe('image/avif');
    expect(sniffImageType(strToU8('<svg onload="alert(1)">'))).toBeUndefined();
  });
});
