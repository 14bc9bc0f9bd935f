import { type CharacterBook, type LorebookEntry } from './card-schema';
import { type Decorator, parseDecorators } from './decorators';
import { compileKeys, type KeyMatchOptions, type TextMatcher } from './key-matcher';

export interface LorebookScanOptions {
  /** The chat so far, oldest first; the last `scan_depth` messages are scanned for keys. */
  recentMessages: readonly string[];
  /** Tokens the lorebook may add to the prompt; the book's own `token_budget` applies too, if smaller. */
  budgetTokens: number;
  estimateTokens: (text: string) => number;
  /** How many times activated entries' content may activate further entries (0: never). */
  recursionLimit?: number;
  /** Messages scanned when the book sets no `scan_depth`. */
  defaultScanDepth?: number;
  /** For entries that set no `case_sensitive`. */
  caseSensitive?: boolean;
  /** For entries whose `extensions.match_whole_words` (SillyTavern) is not set. */
  matchWholeWords?: boolean;
}

export type ActivationReason = 'constant' | 'decorator' | 'keys' | 'recursion';

export interface ActivatedEntry {
  entry: LorebookEntry;
  /** Where the entry is in `book.entries`. */
  index: number;
  /** The content to insert: decorator lines removed, macros not yet applied. */
  content: string;
  /** Its decorators (`@@depth`, `@@role`, `@@position`, ...) for the prompt builder to place it by. */
  decorators: Decorator[];
  tokens: number;
  reason: ActivationReason;
}

export interface LorebookActivation {
  /** What goes into the prompt, by `insertion_order` (lower first). */
  entries: ActivatedEntry[];
  /** Entries that matched but did not fit in the budget, most important first. */
  droppedForBudget: ActivatedEntry[];
}

/** SillyTavern's default world-info scan depth: the user's message and the reply before it. */
export const DEFAULT_SCAN_DEPTH = 2;
export const DEFAULT_RECURSION_LIMIT = 3;

interface Candidate {
  entry: LorebookEntry;
  index: number;
  content: string;
  decorators: Decorator[];
  alwaysOn: ActivationReason | undefined;
  scanDepth: number;
  matches: TextMatcher;
}

/**
 * The lorebook entries a turn activates (Character Card V2/V3 rules). Enabled entries only; `constant` ones
 * always; others when a key is in the scan window (`selective` ones also need a secondary key), then again
 * against the content of entries already activated (recursive scanning, unless the book turns it off, at most
 * `recursionLimit` times). Within the budget, higher `priority` wins, then higher `insertion_order` (spec v3);
 * once one entry does not fit, it and everything less important are dropped.
 */
export function activateLorebook(
  book: CharacterBook | null | undefined,
  options: LorebookScanOptions,
): LorebookActivation {
  if (!book) return { entries: [], droppedForBudget: [] };
  const windowFor = windowCache(options.recentMessages);
  let remaining = book.entries.flatMap((entry, index) => toCandidate(entry, index, book, options) ?? []);
  const budget = Math.min(options.budgetTokens, book.token_budget ?? Infinity);
  const maxPass = book.recursive_scanning === false ? 0 : (options.recursionLimit ?? DEFAULT_RECURSION_LIMIT);
  const accepted: ActivatedEntry[] = [];
  const dropped: ActivatedEntry[] = [];
  let used = 0;
  let recursed = '';
  for (let pass = 0; pass <= maxPass && dropped.length === 0; pass++) {
    const activated = remaining.flatMap((candidate): ActivatedEntry[] => {
      const reason = pass === 0 ? candidate.alwaysOn : undefined;
      const text =
        pass === 0 ? windowFor(candidate.scanDepth) : `${windowFor(candidate.scanDepth)}\n${recursed}`;
      if (!reason && !candidate.matches(text)) return [];
      const tokens = options.estimateTokens(candidate.content);
      const { entry, index, content, decorators } = candidate;
      return [
        { entry, index, content, decorators, tokens, reason: reason ?? (pass === 0 ? 'keys' : 'recursion') },
      ];
    });
    if (activated.length === 0) break;
    const activatedIndexes = new Set(activated.map((activation) => activation.index));
    remaining = remaining.filter((candidate) => !activatedIndexes.has(candidate.index));
    for (const activation of activated.sort(byImportance)) {
      if (dropped.length === 0 && used + activation.tokens <= budget) {
        accepted.push(activation);
        used += activation.tokens;
        recursed += `\n${activation.content}`;
      } else {
        dropped.push(activation);
      }
    }
  }
  return { entries: accepted.sort(byInsertionOrder), droppedForBudget: dropped };
}

function toCandidate(
  entry: LorebookEntry,
  index: number,
  book: CharacterBook,
  options: LorebookScanOptions,
): Candidate | undefined {
  const { decorators, content } = parseDecorators(entry.content);
  const has = (name: string) => decorators.some((decorator) => decorator.name === name);
  const values = (name: string) => decorators.find((decorator) => decorator.name === name)?.values;
  if (!entry.enabled || content.trim() === '') return undefined;
  if (has('dont_activate') && !has('activate')) return undefined;

  const matchWholeWords = entry.extensions['match_whole_words'];
  const keyOptions: KeyMatchOptions = {
    caseSensitive: entry.case_sensitive ?? options.caseSensitive ?? false,
    wholeWords: typeof matchWholeWords === 'boolean' ? matchWholeWords : (options.matchWholeWords ?? true),
    useRegex: entry.use_regex ?? false,
  };
  const primary = compileKeys(entry.keys, keyOptions);
  // Spec v3 would ignore secondary keys of regex entries, but SillyTavern marks every entry it exports
  // `use_regex: true`: ignoring them would turn its selective entries into plain ones.
  const secondary =
    entry.selective && entry.secondary_keys?.length
      ? compileKeys(entry.secondary_keys, keyOptions)
      : undefined;
  const additional = values('additional_keys');
  const requireAlso = additional?.length ? compileKeys(additional, keyOptions) : undefined;
  const exclude = values('exclude_keys');
  const excluded = exclude?.length ? compileKeys(exclude, keyOptions) : undefined;

  const decoratedDepth = Number.parseInt(values('scan_depth')?.[0] ?? '', 10);
  return {
    entry,
    index,
    content,
    decorators,
    alwaysOn: has('activate') ? 'decorator' : entry.constant ? 'constant' : undefined,
    scanDepth: Number.isNaN(decoratedDepth)
      ? (book.scan_depth ?? options.defaultScanDepth ?? DEFAULT_SCAN_DEPTH)
      : decoratedDepth,
    matches: (text) =>
      primary(text) &&
      (secondary?.(text) ?? true) &&
      (requireAlso?.(text) ?? true) &&
      !(excluded?.(text) ?? false),
  };
}

function windowCache(messages: readonly string[]): (depth: number) => string {
  const cache = new Map<number, string>();
  return (depth) => {
    let text = cache.get(depth);
    if (text === undefined) {
      text = depth > 0 ? messages.slice(-depth).join('\n') : '';
      cache.set(depth, text);
    }
    return text;
  };
}

function byImportance(a: ActivatedEntry, b: ActivatedEntry): number {
  return (
    (b.entry.priority ?? 0) - (a.entry.priority ?? 0) ||
    b.entry.insertion_order - a.entry.insertion_order ||
    a.index - b.index
  );
}

function byInsertionOrder(a: ActivatedEntry, b: ActivatedEntry): number {
  return a.entry.insertion_order - b.entry.insertion_order || a.index - b.index;
}
