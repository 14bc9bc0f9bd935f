import { z } from 'zod';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
const NUL = '\u0000';
/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units, no `u`). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const TEXT_PROBLEMS = {
  nul: 'must not contain NUL characters',
  loneSurrogate: 'must not contain unpaired surrogates (malformed UTF-16)',
  control: 'must not contain control characters',
  tooDeep: 'must not be nested more than 64 levels deep',
} as const;

/** Deeper values cannot be serialised back (JSON.stringify recurses) or stored; no real payload comes close. */
const MAX_DEPTH = 64;

/**
 * Why PostgreSQL could not store this string (text refuses NUL, jsonb refuses NUL and lone surrogates), if so.
 * Every other character is storable.
 */
export function unstorableTextProblem(value: string): string | undefined {
  if (value.includes(NUL)) return TEXT_PROBLEMS.nul;
  if (LONE_SURROGATE.test(value)) return TEXT_PROBLEMS.loneSurrogate;
  return undefined;
}

/**
 * User text as PostgreSQL can store it: no lone surrogates, no NUL and no other C0 control characters except
 * tab and newlines. Anything else is a 400 naming the field, never a database error. The one rule for text.
 */
export const userText = () =>
  z.string().superRefine((value, ctx) => {
    const problem =
      unstorableTextProblem(value) ?? (CONTROL_CHARACTERS.test(value) ? TEXT_PROBLEMS.control : undefined);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export interface TextIssue {
  /** Dotted path from the walked value's root, `(root)` for the root itself, like `validationDetails`. */
  path: string;
  message: string;
}

const MAX_ISSUES = 20;

/**
 * Every string (and object key) at any depth of a parsed JSON-like value that PostgreSQL could not store, and
 * any nesting past 64 levels, with its path; at most 20. It never goes deeper than 64 levels, so a deep value
 * cannot overflow the stack.
 */
export function findUnstorableText(value: unknown, root: readonly (string | number)[] = []): TextIssue[] {
  return walk(value, root).map((issue) => ({
    path: issue.path.join('.') || '(root)',
    message: issue.message,
  }));
}

/**
 * Depth first, in document order. It runs on every event and socket payload, so it allocates nothing for clean
 * values: one shared path stack, copied only for the few strings with a problem.
 */
function walk(value: unknown, root: readonly (string | number)[]) {
  const issues: { path: (string | number)[]; message: string }[] = [];
  const path: (string | number)[] = [...root];
  const report = (message: string, last?: string | number) =>
    issues.push({ path: last === undefined ? [...path] : [...path, last], message });
  const visit = (node: unknown, depth: number): void => {
    if (issues.length >= MAX_ISSUES) return;
    if (typeof node === 'string') {
      const problem = unstorableTextProblem(node);
      if (problem) report(problem);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    if (depth >= MAX_DEPTH) return void report(TEXT_PROBLEMS.tooDeep);
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        path.push(index);
        visit(node[index], depth + 1);
        path.pop();
      }
      return;
    }
    for (const key of Object.keys(node)) {
      const problem = unstorableTextProblem(key);
      if (problem) report(`key ${problem}`, escapeKey(key));
      path.push(key);
      visit((node as Record<string, unknown>)[key], depth + 1);
      path.pop();
    }
  };
  visit(value, 0);
  return issues.slice(0, MAX_ISSUES);
}

/**
 * A zod schema that first refuses unstorable text anywhere in the value (issues at their paths), then applies
 * `schema`: for inputs that do not pass the HTTP walk, such as socket events.
 */
export function withStorableText<S extends z.ZodType>(schema: S) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      for (const issue of walk(value, [])) ctx.addIssue({ code: 'custom', ...issue });
    })
    .pipe(schema);
}

/** A key that is itself the problem is named with its bad characters escaped, so the path stays readable. */
const escapeKey = (key: string) =>
  // eslint-disable-next-line no-control-regex -- matching the characters that are the problem
  key.replace(/[\u0000\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
