import {
  importCard,
  writeCardToCharx,
  writeCardToPng,
  parseCardJson,
  type CharacterCard,
} from '@echoloop/character-cards';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startChatFixture, type ChatFixture } from './chat-fixture';

const fixture = (name: string) =>
  readFileSync(path.resolve(__dirname, '../../libs/character-cards/src/fixtures', name), 'utf8');

const V2 = parseCardJson(fixture('v2-card.json'));
const V3 = parseCardJson(fixture('v3-card.json'));

describe('character cards through the gateway', () => {
  let f: ChatFixture;
  let admin: string;

  beforeAll(async () => {
    f = await startChatFixture();
    admin = (await f.registerWithRoles(['admin'])).token;
  });

  afterAll(async () => {
    await f?.close();
  });

  const upload = async (token: string, bytes: Uint8Array | string, filename: string) => {
    const form = new FormData();
    form.append('file', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)]), filename);
    const res = await fetch(`${f.gateway.url}/v1/characters/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  const download = async (id: string, format: string) => {
    const res = await fetch(`${f.gateway.url}/v1/characters/${id}/export?format=${format}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    return { type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
  };

  it.each<[string, CharacterCard, (card: CharacterCard) => Uint8Array | string, string]>([
    ['V2 JSON', V2, (card) => JSON.stringify(card), 'mira.json'],
    ['V3 JSON', V3, (card) => JSON.stringify(card), 'card.json'],
    ['V2 PNG', V2, (card) => writeCardToPng(card), 'mira.png'],
    ['V3 PNG', V3, (card) => writeCardToPng(card), 'card.png'],
  ])('imports a %s card and exports it losslessly as JSON and PNG', async (_name, card, encode, filename) => {
    const imported = await upload(admin, encode(card), filename);
    expect(imported.status).toBe(201);
    expect(imported.body.card).toEqual(card);
    for (const format of ['json', 'png']) {
      const file = await download(imported.body.id, format);
      expect(file.type).toMatch(format === 'png' ? /image\/png/ : /application\/json/);
      expect(importCard(file.bytes).card).toEqual(card);
    }
  });

  it('imports a CHARX archive', async () => {
    const imported = await upload(admin, writeCardToCharx(V3), 'card.charx');
    expect(imported.status).toBe(201);
    expect(imported.body.card.data.name).toBe(V3.data.name);
  });

  it.each([
    ['random bytes', Buffer.from('definitely not a card'), 'x.bin', 400, 'not_a_card'],
    ['a truncated PNG', Buffer.from(writeCardToPng(V2)).subarray(0, 60), 'x.png', 400, 'truncated_png'],
    [
      'a card of an unknown spec',
      JSON.stringify({ ...V2, spec: 'chara_card_v9' }),
      'x.json',
      422,
      'unsupported_spec',
    ],
    [
      'a card without a name',
      JSON.stringify({ ...V2, data: { ...V2.data, name: '' } }),
      'x.json',
      422,
      'invalid_card',
    ],
  ])('rejects %s with a 4xx naming the problem', async (_name, bytes, filename, status, code) => {
    const res = await upload(admin, bytes, filename);
    expect(res).toMatchObject({ status, body: { error: { code } } });
    expect(res.body.error.message.length).toBeGreaterThan(0);
  });

  it('rejects an oversized upload with 413', async () => {
    const res = await upload(admin, Buffer.alloc(21 * 1024 * 1024, 1), 'huge.png');
    expect(res).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
  });

  it('lets only admins import, edit and delete; anyone signed in may read and export', async () => {
    const { token } = await f.register();
    expect((await upload(token, JSON.stringify(V2), 'x.json')).status).toBe(403);
    const created = await f.http(admin, 'POST', '/v1/characters', V2);
    expect(created.status).toBe(201);
    expect((await f.http(token, 'GET', `/v1/characters/${created.body.id}`)).status).toBe(200);
    expect(
      (await f.http(token, 'PATCH', `/v1/characters/${created.body.id}`, { data: { name: 'X' } })).status,
    ).toBe(403);
    const edited = await f.http(admin, 'PATCH', `/v1/characters/${created.body.id}`, {
      data: { personality: 'wry' },
    });
    expect(edited.body.card.data).toMatchObject({ personality: 'wry', extensions: V2.data.extensions });
    expect((await f.http(token, 'DELETE', `/v1/characters/${created.body.id}`)).status).toBe(403);
  });

  it('opens a conversation with an alternate greeting, and refuses one that does not exist', async () => {
    const created = await f.http(admin, 'POST', '/v1/characters', V2);
    const { token } = await f.register('Sam');
    const alternate = await f.http(token, 'POST', '/v1/conversations', {
      characterId: created.body.id,
      greetingIndex: 1,
    });
    expect(alternate.status).toBe(201);
    expect(alternate.body.greetingCount).toBe(1 + V2.data.alternate_greetings.length);
    expect(alternate.body.greeting.content).not.toContain('{{user}}');
    const missing = await f.http(token, 'POST', '/v1/conversations', {
      characterId: created.body.id,
      greetingIndex: 99,
    });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: 'no_such_greeting' } } });
  });
});
