import { type CharacterCardV3, importCard, parseCardJson } from '@echoloop/character-cards';
import { strToU8, zipSync } from 'fflate';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cardTextChunk, IEND, rawPng, realWorldImageChunks } from '@echoloop/testing';
import { type ChatFixture, startChatFixture } from './chat-fixture';

const fixture = (name: string) =>
  readFileSync(path.resolve(__dirname, '../../libs/character-cards/src/fixtures', name), 'utf8');

const V2 = parseCardJson(fixture('v2-card.json'));
const V3 = parseCardJson(fixture('v3-card.json')) as CharacterCardV3;

const { head, idats, tail } = realWorldImageChunks();
/** The picture as a paint program saved it, and the same picture made into a card (stale chara and ccv3 in it). */
const PICTURE = rawPng([...head, ...idats, ...tail, IEND]);
const PNG_CARD = rawPng([
  ...head,
  cardTextChunk('chara', V2),
  ...idats,
  cardTextChunk('ccv3', V3),
  ...tail,
  IEND,
]);
const WEBP = Uint8Array.of(...strToU8('RIFF'), 4, 0, 0, 0, ...strToU8('WEBP'));

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/** The file's chunks but the card's own, as raw bytes: what "the image" of a PNG card is. */
function imageChunks(png: Uint8Array): Buffer {
  const file = Buffer.from(png);
  const kept: Buffer[] = [];
  for (let offset = 8; offset < file.length; ) {
    const end = offset + 12 + file.readUInt32BE(offset);
    const chunk = file.subarray(offset, end);
    const keyword = chunk.toString('latin1', 8, chunk.indexOf(0, 8)).toLowerCase();
    const isCard = chunk.toString('latin1', 4, 8) === 'tEXt' && ['chara', 'ccv3'].includes(keyword);
    if (!isCard) kept.push(chunk);
    offset = end;
  }
  return Buffer.concat(kept);
}

describe('character pictures through the gateway', () => {
  let f: ChatFixture;
  let admin: string;
  let reader: string;

  beforeAll(async () => {
    f = await startChatFixture();
    admin = (await f.registerWithRoles(['admin'])).token;
    reader = (await f.register()).token;
  });

  afterAll(async () => {
    await f?.close();
  });

  const upload = async (bytes: Uint8Array | string, filename: string, route = '/v1/characters/import') => {
    const form = new FormData();
    form.append('file', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)]), filename);
    const res = await fetch(`${f.gateway.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  const get = async (
    route: string,
    headers: Record<string, string> = { authorization: `Bearer ${reader}` },
  ) => {
    const res = await fetch(`${f.gateway.url}${route}`, { headers });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const isJson = res.headers.get('content-type')?.includes('json') ?? false;
    return {
      status: res.status,
      headers: res.headers,
      bytes,
      json: isJson ? JSON.parse(Buffer.from(bytes).toString()) : undefined,
    };
  };

  const counts = async () => {
    const [row] = await f.db.query<{ characters: string; assets: string }[]>(
      'SELECT (SELECT count(*) FROM characters) AS characters, (SELECT count(*) FROM character_assets) AS assets',
    );
    return row;
  };

  it("serves a PNG card's image, without the card, as the avatar, to anyone signed in; 304 when unchanged", async () => {
    const imported = await upload(PNG_CARD, 'kaito.png');
    expect(imported.status).toBe(201);
    const route = `/v1/characters/${imported.body.id}/avatar`;

    const avatar = await get(route);
    expect(avatar.status).toBe(200);
    expect(avatar.headers.get('content-type')).toBe('image/png');
    expect(same(avatar.bytes, PICTURE)).toBe(true);
    const etag = `"${sha256(PICTURE)}"`;
    expect(avatar.headers.get('etag')).toBe(etag);
    expect(avatar.headers.get('cache-control')).toBe('private, no-cache');

    // As a browser revalidates; fetch would add `cache-control: no-cache`, which asks for the full answer.
    const unchanged = await get(route, {
      authorization: `Bearer ${reader}`,
      'if-none-match': etag,
      'cache-control': 'max-age=0',
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.bytes).toHaveLength(0);
    expect((await get(route, {})).status).toBe(401);
  });

  it('exports the original image with fresh card chunks (PNG) or as the main icon (CHARX); re-imports keep it', async () => {
    const imported = await upload(PNG_CARD, 'kaito.png');
    await f.http(admin, 'PATCH', `/v1/characters/${imported.body.id}`, { data: { personality: 'calmer' } });

    const exported = await get(`/v1/characters/${imported.body.id}/export?format=png`);
    expect(exported.status).toBe(200);
    expect(imageChunks(exported.bytes).equals(PICTURE.subarray(8))).toBe(true);
    const card = importCard(exported.bytes).card;
    expect(card).toEqual({ ...V3, data: { ...V3.data, personality: 'calmer' } });

    const again = await upload(exported.bytes, 'kaito.png');
    expect(again.status).toBe(201);
    expect(same((await get(`/v1/characters/${again.body.id}/avatar`)).bytes, PICTURE)).toBe(true);

    const charx = await get(`/v1/characters/${imported.body.id}/export?format=charx`);
    const fromCharx = await upload(charx.bytes, 'kaito.charx');
    expect(fromCharx.status).toBe(201);
    expect(same((await get(`/v1/characters/${fromCharx.body.id}/avatar`)).bytes, PICTURE)).toBe(true);
  });

  it("serves a CHARX card's main icon and its files, and gives every file back on export", async () => {
    const files = {
      'assets/icon/images/main.png': PICTURE,
      'assets/background/images/alley.webp': WEBP,
      'x_risu_module.json': strToU8('{"name":"module"}'),
    };
    const charx = zipSync({ 'card.json': strToU8(JSON.stringify(V3)), ...files });
    const imported = await upload(charx, 'kaito.charx');
    expect(imported.status).toBe(201);

    const avatar = await get(`/v1/characters/${imported.body.id}/avatar`);
    expect(avatar.headers.get('content-type')).toBe('image/png');
    expect(same(avatar.bytes, PICTURE)).toBe(true);

    const asset = (path: string) =>
      get(`/v1/characters/${imported.body.id}/assets?path=${encodeURIComponent(path)}`);
    const background = await asset('assets/background/images/alley.webp');
    expect(background.headers.get('content-type')).toBe('image/webp');
    expect(same(background.bytes, WEBP)).toBe(true);
    const risuModule = await asset('x_risu_module.json');
    expect(risuModule.headers.get('content-type')).toBe('application/octet-stream');
    expect(risuModule.headers.get('content-disposition')).toBe('attachment');
    expect(await asset('assets/none.png')).toMatchObject({
      status: 404,
      json: { error: { code: 'no_such_asset' } },
    });

    const exported = importCard((await get(`/v1/characters/${imported.body.id}/export?format=charx`)).bytes);
    expect(exported.card).toEqual(V3);
    expect(exported.assets).toEqual(files);
    const png = await get(`/v1/characters/${imported.body.id}/export?format=png`);
    expect(imageChunks(png.bytes).equals(PICTURE.subarray(8))).toBe(true);
  });

  it('replaces the picture when a PNG replaces the card, keeps it for a JSON card or an edit, drops it with the character', async () => {
    const imported = await upload(PNG_CARD, 'kaito.png');
    const id = imported.body.id as string;
    const avatarBytes = async () => (await get(`/v1/characters/${id}/avatar`)).bytes;

    const fromJson = await upload(JSON.stringify(V2), 'mira.json', `/v1/characters/${id}/import`);
    expect(fromJson).toMatchObject({ status: 200, body: { id, name: V2.data.name } });
    expect(same(await avatarBytes(), PICTURE)).toBe(true);

    const replacement = rawPng([head[0]!, cardTextChunk('chara', V2), ...idats.slice(0, 1), IEND]);
    expect((await upload(replacement, 'new.png', `/v1/characters/${id}/import`)).status).toBe(200);
    const replaced = await get(`/v1/characters/${id}/avatar`);
    expect(same(replaced.bytes, rawPng([head[0]!, ...idats.slice(0, 1), IEND]))).toBe(true);

    await f.http(admin, 'PATCH', `/v1/characters/${id}`, { data: { personality: 'wry' } });
    expect(same(await avatarBytes(), replaced.bytes)).toBe(true);
    const reader403 = await fetch(`${f.gateway.url}/v1/characters/${id}/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(reader403.status).toBe(403);

    expect((await f.http(admin, 'DELETE', `/v1/characters/${id}`)).status).toBe(204);
    const left = await f.db.query('SELECT 1 FROM character_assets WHERE character_id = $1', [id]);
    expect(left).toEqual([]);
  });

  it('answers 404 with the error shape when there is no picture, and still exports a placeholder', async () => {
    const created = await f.http(admin, 'POST', '/v1/characters', V2);
    const none = await get(`/v1/characters/${created.body.id}/avatar`);
    expect(none).toMatchObject({ status: 404, json: { error: { code: 'no_avatar' } } });
    const unknown = await get(`/v1/characters/${randomUUID()}/avatar`);
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
    const png = await get(`/v1/characters/${created.body.id}/export?format=png`);
    expect(importCard(png.bytes).card).toEqual(V2);
  });

  const corrupted = Buffer.from(PNG_CARD);
  corrupted.writeUInt8(
    corrupted.readUInt8(corrupted.indexOf('IDAT') + 6) ^ 0x01,
    corrupted.indexOf('IDAT') + 6,
  );
  const charxWith = (card: unknown, files: Record<string, Uint8Array>) =>
    zipSync({ 'card.json': strToU8(JSON.stringify(card)), ...files });
  const withIcon = (uri: string) => ({
    ...V3,
    data: { ...V3.data, assets: [{ type: 'icon', uri, name: 'main', ext: 'png' }] },
  });

  it.each<[string, () => Uint8Array, string, number, string]>([
    ['a PNG with a corrupted IDAT', () => corrupted, 'x.png', 400, 'bad_crc'],
    [
      'a PNG cut off in its image',
      () => PNG_CARD.subarray(0, PNG_CARD.indexOf('IDAT') + 10),
      'x.png',
      400,
      'truncated_png',
    ],
    ['a PNG card with no image', () => rawPng([cardTextChunk('chara', V2), IEND]), 'x.png', 400, 'bad_image'],
    [
      'a CHARX entry that climbs out of its folder',
      () => charxWith(V3, { '../../evil.png': PICTURE }),
      'x.charx',
      400,
      'bad_archive',
    ],
    [
      'a CHARX entry with an absolute path',
      () => charxWith(V3, { '/etc/evil.png': PICTURE }),
      'x.charx',
      400,
      'bad_archive',
    ],
    [
      'a CHARX asset URI that climbs out',
      () => charxWith(withIcon('embeded://../main.png'), {}),
      'x.charx',
      400,
      'bad_archive',
    ],
    [
      'a CHARX asset that inflates past the limit (zip bomb)',
      () => charxWith(V3, { 'assets/other/zeros.bin': new Uint8Array(65 * 1024 * 1024) }),
      'x.charx',
      413,
      'too_large',
    ],
  ])('refuses %s with a 4xx, storing nothing', async (_name, file, filename, status, code) => {
    const before = await counts();
    const res = await upload(file(), filename);
    expect(res).toMatchObject({ status, body: { error: { code } } });
    expect(await counts()).toEqual(before);
  });

  it('stores a card and its files together or not at all', async () => {
    await f.db.query(`
      CREATE FUNCTION fail_asset() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await f.db.query(`
      CREATE TRIGGER fail_asset BEFORE INSERT ON character_assets
      FOR EACH ROW WHEN (NEW.path = 'assets/other/fail.bin') EXECUTE FUNCTION fail_asset()`);
    try {
      const before = await counts();
      const charx = charxWith(V3, { 'assets/icon/images/main.png': PICTURE, 'assets/other/fail.bin': WEBP });
      expect((await upload(charx, 'x.charx')).status).toBe(500);
      expect(await counts()).toEqual(before);
    } finally {
      await f.db.query('DROP TRIGGER fail_asset ON character_assets');
      await f.db.query('DROP FUNCTION fail_asset');
    }
  });
});
