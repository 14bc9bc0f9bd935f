/** A lorebook decorator (spec v3): a `@@name value,value` line at the top of an entry's content. */
export interface Decorator {
  name: string;
  values: string[];
}

export interface DecoratedContent {
  /** The decorators in effect: known ones, the first of each name, fallbacks (`@@@`) resolved. */
  decorators: Decorator[];
  /** The content without its decorator lines, as it goes into the prompt. */
  content: string;
}

/** Every decorator spec v3 defines; an unknown one is ignored unless a `@@@` fallback after it is known. */
export const SPEC_DECORATORS: ReadonlySet<string> = new Set([
  'activate_only_after',
  'activate_only_every',
  'keep_activate_after_match',
  'dont_activate_after_match',
  'depth',
  'instruct_depth',
  'reverse_depth',
  'reverse_instruct_depth',
  'role',
  'scan_depth',
  'instruct_scan_depth',
  'is_greeting',
  'position',
  'ignore_on_max_context',
  'additional_keys',
  'exclude_keys',
  'is_user_icon',
  'dont_activate',
  'activate',
  'disable_ui_prompt',
]);

interface DecoratorLine extends Decorator {
  isFallback: boolean;
}

const DECORATOR_LINE = /^(@@@?)([A-Za-z0-9_]*)(?:\s+(.*))?$/;

export function parseDecorators(
  text: string,
  known: ReadonlySet<string> = SPEC_DECORATORS,
): DecoratedContent {
  const lines = text.split(/\r?\n/);
  let bodyStart = 0;
  const found: DecoratorLine[] = [];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed !== '' && !trimmed.startsWith('@@')) break;
    bodyStart++;
    const match = DECORATOR_LINE.exec(trimmed);
    if (match)
      found.push({ isFallback: match[1] === '@@@', name: match[2] ?? '', values: splitValues(match[3]) });
  }
  if (found.length === 0) return { decorators: [], content: text };
  return { decorators: resolve(found, known), content: lines.slice(bodyStart).join('\n') };
}

function splitValues(raw: string | undefined): string[] {
  const value = raw?.trim() ?? '';
  return value === '' ? [] : value.split(',').map((part) => part.trim());
}

/** Groups each `@@` line with the `@@@` fallbacks under it and keeps the first known one of each group. */
function resolve(lines: readonly DecoratorLine[], known: ReadonlySet<string>): Decorator[] {
  const groups: DecoratorLine[][] = [];
  for (const line of lines) {
    const current = groups.at(-1);
    if (line.isFallback && current) current.push(line);
    else groups.push([line]);
  }
  const chosen = new Map<string, Decorator>();
  for (const group of groups) {
    const pick = group.find((line) => known.has(line.name));
    if (pick && !chosen.has(pick.name)) chosen.set(pick.name, { name: pick.name, values: pick.values });
  }
  return [...chosen.values()];
}
