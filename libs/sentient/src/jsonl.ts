import { z } from 'zod';

export interface LineError {
  /** 1-based line number. */
  line: number;
  error: string;
}

/**
 * Reads JSONL against a schema: every valid line becomes an item, every invalid one an error. Blank lines are
 * skipped; an id (as `idOf` gives it) already seen is an error on the later line.
 */
export function parseJsonl<T>(
  text: string,
  schema: z.ZodType<T>,
  idOf: (item: T) => string | undefined,
): { items: T[]; errors: LineError[] } {
  const items: T[] = [];
  const errors: LineError[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      errors.push({ line, error: `not JSON: ${(error as Error).message}` });
      return;
    }
    const result = schema.safeParse(json);
    if (!result.success) {
      errors.push({ line, error: z.prettifyError(result.error) });
      return;
    }
    const id = idOf(result.data);
    if (id !== undefined && seen.has(id)) {
      errors.push({ line, error: `duplicate id "${id}"` });
      return;
    }
    if (id !== undefined) seen.add(id);
    items.push(result.data);
  });
  return { items, errors };
}
