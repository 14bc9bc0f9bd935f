import { type CharacterBook, type LorebookEntry } from './card-schema';
import { fixtureText } from './fixtures/fixtures';
import { activateLorebook, type LorebookScanOptions } from './lorebook';
import { parseCardJson } from './parse';

const countWords = (text: string) => text.split(/\s+/).filter(Boolean).length;

function entry(fields: Partial<LorebookEntry> & Pick<LorebookEntry, 'content'>): LorebookEntry {
  return { keys: [], enabled: true, insertion_order: 100, extensions: {}, ...fields };
}

function book(entries: LorebookEntry[], fields: Partial<CharacterBook> = {}): CharacterBook {
  return { extensions: {}, entries, ...fields };
}

function scan(lorebook: CharacterBook, recentMessages: string[], options: Partial<LorebookScanOptions> = {}) {
  return activateLorebook(lorebook, {
    recentMessages,
    budgetTokens: 1000,
    estimateTokens: countWords,
    ...options,
  });
}

const contents = (activation: ReturnType<typeof scan>) => activation.entries.map((active) => active.content);

describe('activateLorebook', () => {
  it('activates an entry when one of its keys is in a recent message, as a whole word', () => {
    const lorebook = book([entry({ keys: ['dragon', 'wyrm'], content: 'Dragons sleep.' })]);
    expect(contents(scan(lorebook, ['Is that a wyrm?']))).toEqual(['Dragons sleep.']);
    expect(contents(scan(lorebook, ['The DRAGON wakes']))).toEqual(['Dragons sleep.']);
    expect(contents(scan(lorebook, ['dragonfly season']))).toEqual([]);
    expect(contents(scan(lorebook, ['nothing here']))).toEqual([]);
  });

  it('lets an entry or the caller turn whole-word matching off', () => {
    const lorebook = book([
      entry({ keys: ['dragon'], content: 'D', extensions: { match_whole_words: false } }),
    ]);
    expect(contents(scan(lorebook, ['dragonfly']))).toEqual(['D']);
    const plain = book([entry({ keys: ['dragon'], content: 'D' })]);
    expect(contents(scan(plain, ['dragonfly'], { matchWholeWords: false }))).toEqual(['D']);
  });

  it('matches keys in scripts without spaces, and keys with punctuation at their edges', () => {
    const lorebook = book([
      entry({ keys: ['らーめん'], content: 'ramen' }),
      entry({ keys: ['Dr. Who?'], content: 'doctor' }),
      entry({ keys: ['Ørsted'], content: 'physicist' }),
    ]);
    expect(contents(scan(lorebook, ['今日はらーめんが食べたい']))).toEqual(['ramen']);
    expect(contents(scan(lorebook, ['Ask Dr. Who?!']))).toEqual(['doctor']);
    expect(contents(scan(lorebook, ['Hans Christian Ørsted']))).toEqual(['physicist']);
    expect(contents(scan(lorebook, ['Hans Christian Ørstedt']))).toEqual([]);
  });

  it('is case-insensitive unless the entry says otherwise', () => {
    const lorebook = book([entry({ keys: ['Ash'], content: 'The character Ash.', case_sensitive: true })]);
    expect(contents(scan(lorebook, ['Ash arrives']))).toEqual(['The character Ash.']);
    expect(contents(scan(lorebook, ['ash falls']))).toEqual([]);
    const insensitive = book([entry({ keys: ['Ash'], content: 'x', case_sensitive: false })]);
    expect(contents(scan(insensitive, ['ash falls'], { caseSensitive: true }))).toEqual(['x']);
  });

  it('requires a secondary key too for selective entries', () => {
    const lorebook = book([
      entry({
        keys: ['dragon'],
        secondary_keys: ['glacier', 'ice'],
        selective: true,
        content: 'Ice dragon.',
      }),
      entry({ keys: ['dragon'], secondary_keys: ['glacier'], selective: false, content: 'Any dragon.' }),
    ]);
    expect(contents(scan(lorebook, ['a dragon']))).toEqual(['Any dragon.']);
    expect(contents(scan(lorebook, ['a dragon under the ice']))).toEqual(['Ice dragon.', 'Any dragon.']);
    expect(contents(scan(lorebook, ['glacier only']))).toEqual([]);
  });

  it('requires secondary keys of regex entries too (SillyTavern marks all its entries use_regex)', () => {
    const lorebook = book([
      entry({ keys: ['dragon'], secondary_keys: ['ice'], selective: true, use_regex: true, content: 'Ice.' }),
    ]);
    expect(contents(scan(lorebook, ['a dragon']))).toEqual([]);
    expect(contents(scan(lorebook, ['a dragon of ice']))).toEqual(['Ice.']);
  });

  it('always activates constant entries and never disabled ones', () => {
    const lorebook = book([
      entry({ constant: true, content: 'Always.' }),
      entry({ constant: true, enabled: false, content: 'Disabled constant.' }),
      entry({ keys: ['door'], enabled: false, content: 'Disabled keyword.' }),
      entry({ keys: ['door'], content: '   ' }),
    ]);
    const activation = scan(lorebook, ['open the door']);
    expect(contents(activation)).toEqual(['Always.']);
    expect(activation.entries[0]?.reason).toBe('constant');
  });

  it('scans only the last scan_depth messages', () => {
    const lorebook = book([entry({ keys: ['sword'], content: 'Sword lore.' })], { scan_depth: 2 });
    expect(contents(scan(lorebook, ['a sword', 'hello', 'there']))).toEqual([]);
    expect(contents(scan(lorebook, ['hello', 'a sword', 'there']))).toEqual(['Sword lore.']);
    const noDepth = book([entry({ keys: ['sword'], content: 'Sword lore.' })]);
    expect(contents(scan(noDepth, ['a sword', 'x', 'y'], { defaultScanDepth: 3 }))).toEqual(['Sword lore.']);
    expect(contents(scan(noDepth, ['a sword', 'x', 'y']))).toEqual([]);
  });

  it('lets activated content activate other entries, up to the recursion limit', () => {
    const chain = book([
      entry({ keys: ['tavern'], content: 'The tavern is run by Bram.', insertion_order: 1 }),
      entry({ keys: ['Bram'], content: 'Bram owes money to the guild.', insertion_order: 2 }),
      entry({ keys: ['guild'], content: 'The guild hunts debtors at night.', insertion_order: 3 }),
      entry({ keys: ['night'], content: 'Nights here are long.', insertion_order: 4 }),
    ]);
    const full = scan(chain, ['Let us go to the tavern']);
    expect(full.entries.map((active) => active.reason)).toEqual([
      'keys',
      'recursion',
      'recursion',
      'recursion',
    ]);
    expect(contents(scan(chain, ['the tavern'], { recursionLimit: 1 }))).toEqual([
      'The tavern is run by Bram.',
      'Bram owes money to the guild.',
    ]);
    expect(contents(scan(chain, ['the tavern'], { recursionLimit: 0 }))).toHaveLength(1);
    expect(contents(scan({ ...chain, recursive_scanning: false }, ['the tavern']))).toHaveLength(1);
  });

  it('activates a selective entry whose secondary key comes from recursed content', () => {
    const lorebook = book([
      entry({ keys: ['forge'], content: 'The forge burns with dragon fire.' }),
      entry({
        keys: ['smith'],
        secondary_keys: ['dragon'],
        selective: true,
        content: 'The smith fears dragons.',
      }),
    ]);
    expect(contents(scan(lorebook, ['the smith at the forge']))).toEqual([
      'The forge burns with dragon fire.',
      'The smith fears dragons.',
    ]);
  });

  it('keeps the most important entries within the budget and reports the rest', () => {
    const lorebook = book([
      entry({ constant: true, content: 'one two three', priority: 1, insertion_order: 1 }),
      entry({ constant: true, content: 'four five', priority: 10, insertion_order: 50 }),
      entry({ constant: true, content: 'six', priority: 1, insertion_order: 5 }),
      entry({ constant: true, content: 'seven', insertion_order: 2 }),
    ]);
    const activation = scan(lorebook, [], { budgetTokens: 6 });
    // priority 10 first, then priority 1 by higher insertion_order: 'six' (5), then 'one two three' (1)
    expect(contents(activation)).toEqual(['one two three', 'six', 'four five']);
    expect(activation.droppedForBudget.map((active) => active.content)).toEqual(['seven']);
    expect(activation.entries.map((active) => active.tokens)).toEqual([3, 1, 2]);
  });

  it('stops at the first entry that does not fit, and honours the book’s own token_budget', () => {
    const lorebook = book(
      [
        entry({ constant: true, content: 'a b c d', priority: 3 }),
        entry({ constant: true, content: 'e f g h i j', priority: 2 }),
        entry({ constant: true, content: 'k', priority: 1 }),
      ],
      { token_budget: 5 },
    );
    const activation = scan(lorebook, [], { budgetTokens: 100 });
    expect(contents(activation)).toEqual(['a b c d']);
    expect(activation.droppedForBudget.map((active) => active.content)).toEqual(['e f g h i j', 'k']);
  });

  it('does not recurse from entries dropped for budget', () => {
    const lorebook = book([
      entry({ keys: ['cave'], content: 'The cave hides a golem and many many more words here', priority: 1 }),
      entry({ keys: ['golem'], content: 'Golems are clay.' }),
    ]);
    const activation = scan(lorebook, ['a cave'], { budgetTokens: 5 });
    expect(contents(activation)).toEqual([]);
    expect(activation.droppedForBudget).toHaveLength(1);
  });

  it('orders the result by insertion_order', () => {
    const lorebook = book([
      entry({ constant: true, content: 'late', insertion_order: 300 }),
      entry({ constant: true, content: 'early', insertion_order: -5 }),
      entry({ constant: true, content: 'middle', insertion_order: 20 }),
    ]);
    expect(contents(scan(lorebook, []))).toEqual(['early', 'middle', 'late']);
  });

  it('treats keys as regular expressions when use_regex is set, and /pattern/flags keys always', () => {
    const lorebook = book([
      entry({ keys: ['\\btrains?\\b'], use_regex: true, content: 'Trains.' }),
      entry({ keys: ['(unclosed'], use_regex: true, content: 'Never: invalid pattern.' }),
      entry({ keys: ['/Ca+t/'], content: 'Cats, case-sensitive literal regex.' }),
    ]);
    expect(contents(scan(lorebook, ['The last TRAIN left. Caaat!']))).toEqual([
      'Trains.',
      'Cats, case-sensitive literal regex.',
    ]);
    expect(contents(scan(lorebook, ['caaat']))).toEqual([]);
  });

  it('follows V3 decorators: activate, dont_activate, additional_keys, exclude_keys, scan_depth', () => {
    const lorebook = book([
      entry({ keys: [], content: '@@activate\nForced on.', insertion_order: 1 }),
      entry({ constant: true, content: '@@dont_activate\nForced off.', insertion_order: 2 }),
      entry({ keys: ['moon'], content: '@@additional_keys wolf, howl\nWerewolf lore.', insertion_order: 3 }),
      entry({ keys: ['moon'], content: '@@exclude_keys day\nNight sky.', insertion_order: 4 }),
      entry({ keys: ['oath'], content: '@@scan_depth 5\nThe old oath.', insertion_order: 5 }),
    ]);
    const messages = ['an oath was sworn', 'x', 'y', 'the moon rises'];
    const activation = scan(lorebook, messages);
    expect(contents(activation)).toEqual(['Forced on.', 'Night sky.', 'The old oath.']);
    expect(activation.entries[0]?.reason).toBe('decorator');
    expect(contents(scan(lorebook, ['a wolf and the moon by day']))).toEqual([
      'Forced on.',
      'Werewolf lore.',
    ]);
  });

  it('returns each entry’s placement decorators for the prompt builder', () => {
    const card = parseCardJson(fixtureText('v3-card.json'));
    const activation = activateLorebook(card.data.character_book, {
      recentMessages: ['One shoyu ramen please', 'before the last train'],
      budgetTokens: 1000,
      estimateTokens: countWords,
    });
    expect(activation.entries.map((active) => [active.entry.insertion_order, active.decorators])).toEqual([
      [5, [{ name: 'activate', values: [] }]],
      [
        20,
        [
          { name: 'depth', values: ['2'] },
          { name: 'role', values: ['system'] },
        ],
      ],
      [30, []],
    ]);
    expect(activation.entries[1]?.content).toBe(
      "Kaito's broth simmers for 36 hours; he never reveals the last ingredient.",
    );
  });

  it('activates the golden V2 card’s lorebook as SillyTavern users expect', () => {
    const card = parseCardJson(fixtureText('v2-card.json'));
    const activation = activateLorebook(card.data.character_book, {
      recentMessages: ['I need a map of Eldoria', 'the east wing is locked'],
      budgetTokens: 1000,
      estimateTokens: countWords,
    });
    // constant (10), Eldoria (100) by key, then the dragon entry through recursion: 'dragon' + 'glacier'/'Archive'.
    expect(activation.entries.map((active) => [active.entry.id, active.reason])).toEqual([
      [2, 'constant'],
      [0, 'keys'],
      [1, 'recursion'],
    ]);
  });

  it('returns nothing for a card without a lorebook', () => {
    expect(
      activateLorebook(undefined, { recentMessages: ['x'], budgetTokens: 10, estimateTokens: countWords }),
    ).toEqual({ entries: [], droppedForBudget: [] });
  });
});
