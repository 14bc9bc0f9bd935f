import { type CharacterCard } from './card-schema';
import { fixtureText, type FixtureName } from './fixtures/fixtures';
import { importCard, parseCardJson } from './parse';
import { readPngChunks } from './png-chunks';
import { decodeTextChunk } from './png-text';
import { cardToJson, writeCardToCharx, writeCardToPng } from './serialize';

const fixtures: FixtureName[] = ['v1-card.json', 'v2-card.json', 'v3-card.json'];

/** import → export → import must give the very same card: unknown fields, extensions and nulls included. */
describe.each(fixtures)('round trip of %s', (fixture) => {
  const card = parseCardJson(fixtureText(fixture));

  it('through JSON', () => {
    const imported = importCard(Buffer.from(cardToJson(card)), 'card.json');
    expect(imported.format).toBe('json');
    expect(imported.card).toStrictEqual(card);
  });

  it('through PNG', () => {
    const imported = importCard(writeCardToPng(card), 'card.png');
    expect(imported.format).toBe('png');
    expect(imported.card).toStrictEqual(card);
  });

  it('through a PNG written over its own export', () => {
    const twice = writeCardToPng(card, writeCardToPng(card));
    expect(importCard(twice).card).toStrictEqual(card);
  });
});

describe('round trip through CHARX', () => {
  it('keeps a V3 card and its assets', () => {
    const card = parseCardJson(fixtureText('v3-card.json'));
    const assets = {
      'assets/icon/images/main.png': writeCardToPng(card),
      'assets/background/images/alley.webp': new Uint8Array([82, 73, 70, 70, 0, 1, 2, 3]),
    };
    const imported = importCard(writeCardToCharx(card, assets), 'kaito.charx');
    expect(imported.format).toBe('charx');
    expect(imported.card).toStrictEqual(card);
    expect(imported.assets).toEqual(assets);
  });

  it('stores a V2 card as V3, the only version CHARX holds, and keeps everything else', () => {
    const card = parseCardJson(fixtureText('v2-card.json'));
    const { card: back } = importCard(writeCardToCharx(card));
    expect(back).toStrictEqual({
      ...card,
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: { ...card.data, group_only_greetings: [] },
    } satisfies CharacterCard);
  });
});

describe('V3 cards in PNG', () => {
  it('carry a V2 copy in `chara` for V2-only readers, with the spec’s notice and no decorators', () => {
    const card = parseCardJson(fixtureText('v3-card.json'));
    const texts = readPngChunks(writeCardToPng(card)).flatMap((chunk) => decodeTextChunk(chunk) ?? []);
    expect(texts.map((text) => text.keyword)).toEqual(['chara', 'ccv3']);
    const v2Text = texts[0]?.text ?? '';
    const fallback = parseCardJson(Buffer.from(v2Text, 'base64').toString('utf8'));
    expect(fallback.spec).toBe('chara_card_v2');
    expect(fallback.data.creator_notes).toMatch(
      /^This character card is Character Card V3, but it is loaded as/,
    );
    expect(fallback.data.creator_notes).toContain(card.data.creator_notes);
    expect(fallback.data.character_book?.entries[0]?.content).toBe(
      "Kaito's broth simmers for 36 hours; he never reveals the last ingredient.",
    );
    expect(fallback.data['nickname']).toBe('Kai');
  });
});
