import { characterCardSchema, characterCardV2Schema, characterCardV3Schema } from './card-schema';
import { fixtureJson } from './fixtures/fixtures';

describe('card schemas', () => {
  it('accept the golden V2 card and keep every unknown field verbatim', () => {
    const raw = fixtureJson('v2-card.json');
    const card = characterCardV2Schema.parse(raw);
    expect(card).toStrictEqual(raw); // the fixture sets every field, so no default is added
    expect(card['creatorcomment']).toBe('Slow-burn mystery. Works best with 200+ token replies.');
    expect(card.data['x_custom_top_of_data']).toEqual({ kept: ['verbatim', 1, null, { nested: true }] });
    expect(card.data.character_book?.entries[0]?.extensions['display_index']).toBe(0);
  });

  it('accept the golden V3 card with assets, nickname and decorators', () => {
    const raw = fixtureJson('v3-card.json');
    const card = characterCardV3Schema.parse(raw);
    expect(card).toStrictEqual(raw);
    expect(card.data.assets?.[2]?.['x_intensity']).toBe(0.8);
    expect(card.data.character_book?.entries[0]?.id).toBe('broth');
  });

  it('default the fields the specs give defaults, and only those', () => {
    const card = characterCardSchema.parse({ spec: 'chara_card_v3', data: { name: 'Min' } });
    expect(card).toStrictEqual({
      spec: 'chara_card_v3',
      spec_version: '3.0',
      data: {
        name: 'Min',
        description: '',
        personality: '',
        scenario: '',
        first_mes: '',
        mes_example: '',
        creator_notes: '',
        system_prompt: '',
        post_history_instructions: '',
        alternate_greetings: [],
        tags: [],
        creator: '',
        character_version: '',
        extensions: {},
        group_only_greetings: [],
      },
    });
  });

  it('default a lorebook’s and its entries’ extensions to {} but require the other entry fields', () => {
    const ok = characterCardV2Schema.parse({
      spec: 'chara_card_v2',
      data: {
        name: 'A',
        character_book: { entries: [{ keys: ['k'], content: 'c', enabled: true, insertion_order: 1 }] },
      },
    });
    expect(ok.data.character_book).toStrictEqual({
      extensions: {},
      entries: [{ keys: ['k'], content: 'c', enabled: true, insertion_order: 1, extensions: {} }],
    });
    const missing = characterCardV2Schema.safeParse({
      spec: 'chara_card_v2',
      data: { name: 'A', character_book: { entries: [{ keys: 'k', content: 'c' }] } },
    });
    expect(missing.success).toBe(false);
    expect(missing.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'data.character_book.entries.0.keys',
      'data.character_book.entries.0.enabled',
      'data.character_book.entries.0.insertion_order',
    ]);
  });

  it('keep nulls some editors write for absent optional fields', () => {
    const card = characterCardV3Schema.parse({
      spec: 'chara_card_v3',
      data: { name: 'N', character_book: null, nickname: null, assets: null },
    });
    expect(card.data.character_book).toBeNull();
    expect(card.data.nickname).toBeNull();
  });

  it('refuse a blank name', () => {
    expect(characterCardSchema.safeParse({ spec: 'chara_card_v2', data: { name: '  ' } }).success).toBe(
      false,
    );
  });
});
