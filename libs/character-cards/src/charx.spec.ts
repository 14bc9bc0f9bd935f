import { strToU8, zipSync } from 'fflate';
import { embeddedAssetPath } from './charx-archive';
import { expectImportError } from './fixtures/expect-import-error';
import { fixtureText } from './fixtures/fixtures';
import { importCard, readCardFromCharx } from './parse';
import { writeCardToCharx } from './serialize';

const cardJson = strToU8(fixtureText('v3-card.json'));
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;

/** Rewrites the uncompressed size every central-directory entry declares, as a hostile archive would. */
function declareUncompressedSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let offset = 0; offset + 46 <= out.length; offset++) {
    if (view.getUint32(offset, true) !== CENTRAL_DIRECTORY_ENTRY) continue;
    const nameLength = view.getUint16(offset + 28, true);
    const entryName = Buffer.from(out.subarray(offset + 46, offset + 46 + nameLength)).toString('utf8');
    if (entryName === name) view.setUint32(offset + 24, size, true);
  }
  return out;
}

describe('readCardFromCharx', () => {
  it('reads card.json and every other file as an asset, skipping directory entries', () => {
    const zip = zipSync({
      'card.json': cardJson,
      assets: { icon: { images: { 'main.png': new Uint8Array([1, 2, 3]) } } },
      'x_risu_module.json': strToU8('{}'),
    });
    const { card, assets } = readCardFromCharx(zip);
    expect(card.data.name).toBe('Kaito Arashiyama');
    expect(Object.keys(assets).sort()).toEqual(['assets/icon/images/main.png', 'x_risu_module.json']);
  });

  it('refuses an archive without card.json at its root', () => {
    const zip = zipSync({ 'cards/card.json': cardJson });
    expectImportError(() => importCard(zip, 'x.charx'), 'bad_archive', /no card\.json/);
  });

  it('refuses a corrupted archive', () => {
    const zip = writeCardToCharx(JSON.parse(fixtureText('v3-card.json')));
    expectImportError(
      () => importCard(zip.subarray(0, zip.length - 30)),
      'bad_archive',
      /not a readable zip/,
    );
    const garbage = Uint8Array.of(0x50, 0x4b, 0x03, 0x04, ...new Array<number>(40).fill(7));
    expectImportError(() => importCard(garbage), 'bad_archive');
  });

  it('refuses a card.json that is not a card', () => {
    const zip = zipSync({ 'card.json': strToU8('{"hello": "world"}') });
    expectImportError(() => importCard(zip), 'not_a_card');
  });

  it('refuses an archive that expands past the limit (zip bomb)', () => {
    const bomb = zipSync({
      'card.json': cardJson,
      'assets/other/zeros.bin': new Uint8Array(4 * 1024 * 1024),
    });
    expect(bomb.length).toBeLessThan(64 * 1024);
    expectImportError(
      () => importCard(bomb, 'bomb.charx', { maxUncompressedBytes: 1024 * 1024 }),
      'too_large',
      /expands to more than 1048576 bytes/,
    );
  });

  it('trusts no entry to be smaller than it declares, nor bigger', () => {
    const zip = zipSync({ 'card.json': cardJson, 'assets/other/zeros.bin': new Uint8Array(1024 * 1024) });
    const claimsHuge = declareUncompressedSize(zip, 'assets/other/zeros.bin', 0xfffffff0);
    expectImportError(() => importCard(claimsHuge), 'too_large');
    const claimsTiny = declareUncompressedSize(zip, 'assets/other/zeros.bin', 1000);
    expect(readCardFromCharx(claimsTiny).assets['assets/other/zeros.bin']?.length).toBeLessThanOrEqual(1000);
  });

  it('refuses an archive with too many entries', () => {
    const files = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`assets/other/${i}.txt`, strToU8(String(i))]),
    );
    const zip = zipSync({ 'card.json': cardJson, ...files });
    expectImportError(
      () => importCard(zip, 'many.charx', { maxEntries: 10 }),
      'too_large',
      /more than 10 entries/,
    );
  });

  it('refuses entries that would escape the folder they are unpacked to', () => {
    const zip = zipSync({ 'card.json': cardJson, '../../etc/evil.txt': strToU8('x') });
    expectImportError(() => importCard(zip), 'bad_archive', /unsafe path: \.\.\/\.\.\/etc\/evil\.txt/);
  });
});

describe('writeCardToCharx', () => {
  it('refuses asset paths that are unsafe or would replace card.json', () => {
    const card = JSON.parse(fixtureText('v3-card.json'));
    expect(() => writeCardToCharx(card, { '/abs.png': new Uint8Array() })).toThrow(RangeError);
    expect(() => writeCardToCharx(card, { 'card.json': new Uint8Array() })).toThrow(RangeError);
  });
});

describe('embeddedAssetPath', () => {
  it('resolves the spec’s embeded:// URIs (and the common correct spelling)', () => {
    expect(embeddedAssetPath('embeded://assets/icon/images/main.png')).toBe('assets/icon/images/main.png');
    expect(embeddedAssetPath('embedded://assets/a.webp')).toBe('assets/a.webp');
    expect(embeddedAssetPath('ccdefault:')).toBeUndefined();
    expect(embeddedAssetPath('https://example.org/a.png')).toBeUndefined();
  });
});
