import { expectImportError } from './fixtures/expect-import-error';
import { fixtureJson, fixtureText } from './fixtures/fixtures';
import { importCard, parseCardJson } from './parse';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('parseCardJson', () => {
  it('reads JSON text and already parsed objects alike', () => {
    const text = fixtureText('v2-card.json');
    expect(parseCardJson(text)).toStrictEqual(parseCardJson(fixtureJson('v2-card.json')));
    expect(parseCardJson(`\uFEFF${text}`).data.name).toBe('Mirela Voss');
  });

  it('upgrades a V1 card to V2, keeping the V1 fields at the root', () => {
    const card = parseCardJson(fixtureText('v1-card.json'));
    expect(card.spec).toBe('chara_card_v2');
    expect(card.spec_version).toBe('2.0');
    expect(card.data).toMatchObject({
      name: 'Old Tom',
      first_mes: "Shut the door, {{user}}, you're letting the sea in.",
      creator_notes: 'My first card.',
      tags: ['sea'],
      extensions: { talkativeness: '0.4', fav: false },
      alternate_greetings: [],
    });
    expect(card['metadata']).toEqual({ version: 1, tool: 'TavernAI' });
    expect(card['description']).toBe('A retired lighthouse keeper who talks to gulls.');
  });

  it.each([
    ['random JSON', { hello: 'world' }],
    ['a package.json', { name: 'left-pad', description: 'pads strings', version: '1.3.0' }],
    ['a JSON array', [1, 2, 3]],
    ['a JSON string', 'chara_card_v2'],
    ['null', null],
  ])('refuses %s as not a card', (_name, value) => {
    expectImportError(() => parseCardJson(JSON.stringify(value)), 'not_a_card');
  });

  it('refuses an unknown spec, naming it', () => {
    expectImportError(
      () => parseCardJson({ spec: 'chara_card_v9', data: { name: 'X' } }),
      'unsupported_spec',
      /"chara_card_v9".*chara_card_v2, chara_card_v3/,
    );
    expectImportError(() => parseCardJson({ spec: 'lorebook_v3', data: {} }), 'unsupported_spec', /lorebook/);
    expectImportError(() => parseCardJson({ spec: 2, data: {} }), 'unsupported_spec', /a number/);
  });

  it('names every invalid field by its path', () => {
    const error = expectImportError(
      () =>
        parseCardJson({
          spec: 'chara_card_v2',
          data: { name: 7, alternate_greetings: 'hi', character_book: { entries: [{ keys: ['k'] }] } },
        }),
      'invalid_card',
      /data\.name: .*; data\.alternate_greetings: /,
    );
    expect(error.issues).toEqual([
      expect.stringMatching(/^data\.name: /),
      expect.stringMatching(/^data\.alternate_greetings: /),
      expect.stringMatching(/^data\.character_book\.entries\.0\.content: /),
      expect.stringMatching(/^data\.character_book\.entries\.0\.enabled: /),
      expect.stringMatching(/^data\.character_book\.entries\.0\.insertion_order: /),
    ]);
  });

  it('reports malformed JSON as an invalid card', () => {
    expectImportError(() => parseCardJson('{"spec": "chara_card_v2",'), 'invalid_card', /not valid JSON/);
  });

  it('refuses text over the size limit', () => {
    expectImportError(
      () => parseCardJson(fixtureText('v2-card.json'), { maxBytes: 100 }),
      'too_large',
      /limit is 100/,
    );
  });
});

describe('importCard', () => {
  it('sniffs JSON, whatever the file is called', () => {
    const imported = importCard(utf8(`\n  ${fixtureText('v3-card.json')}`), 'kaito.png');
    expect(imported.format).toBe('json');
    expect(imported.card.spec).toBe('chara_card_v3');
    expect(imported.assets).toBeUndefined();
  });

  it('refuses bytes that are no known format, naming the file', () => {
    expectImportError(
      () => importCard(utf8('GIF89a....'), 'cat.gif'),
      'not_a_card',
      /^cat\.gif is not a character card/,
    );
    expectImportError(() => importCard(new Uint8Array(0)), 'not_a_card', /^the file/);
  });

  it('refuses a file over the size limit before reading it', () => {
    const big = new Uint8Array(2048).fill(0x20);
    expectImportError(
      () => importCard(big, 'big.json', { maxBytes: 1024 }),
      'too_large',
      /2048 bytes; the limit is 1024/,
    );
  });

  it('enforces 20 MiB by default', () => {
    const big = new Uint8Array(20 * 1024 * 1024 + 1);
    expectImportError(() => importCard(big), 'too_large');
  });
});
