/** The outcome of reading a judge's free text. `problem` is a short code ('no_label', 'unknown_label', 'no_delta'). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string; detail: string };
