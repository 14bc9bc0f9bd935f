/**
 * A schema's parse, remembered per value, for inputs that every turn parses again though they rarely change (a
 * character's card, a profile the turn itself produced). A value is known by identity (the same object read
 * again, or one `vouch`ed for), else by its JSON text (the same value read again from the database; `maxTexts` 0
 * for values that are never read twice unchanged), so a changed value is always parsed. Parsed results must not be
 * mutated by callers: they are shared.
 */
export class ParseMemo<T> {
  private readonly byObject = new WeakMap<object, T>();
  private readonly texts = new Map<string, T>();

  constructor(
    private readonly parse: (value: unknown) => T,
    private readonly maxTexts = 1_000,
  ) {}

  get(value: unknown): T {
    if (typeof value !== 'object' || value === null) return this.parse(value);
    let parsed = this.byObject.get(value);
    if (parsed === undefined) {
      parsed = this.maxTexts > 0 ? this.byText(value) : this.parse(value);
      this.byObject.set(value, parsed);
    }
    return parsed;
  }

  /** `value` is already what parsing it would give (built by code that only makes valid values). */
  vouch(value: T & object): void {
    this.byObject.set(value, value);
  }

  private byText(value: object): T {
    const text = JSON.stringify(value);
    let parsed = this.texts.get(text);
    if (parsed === undefined) {
      parsed = this.parse(value);
      // The oldest text goes first: Map keeps insertion order.
      if (this.texts.size >= this.maxTexts) this.texts.delete(this.texts.keys().next().value as string);
      this.texts.set(text, parsed);
    }
    return parsed;
  }
}
