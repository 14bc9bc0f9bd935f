import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where benchmarks commit their latest results, and the page that shows them all (both relative to the root). */
export const RESULTS_DIR = 'bench/results';
export const BENCHMARKS_PAGE = 'docs/benchmarks.md';

/** One committed result file: what `writeResultFile` wrote. */
export interface CommittedResult {
  /** The file's name in `bench/results/`. */
  file: string;
  result: Record<string, unknown>;
}

type Cell = string | number | boolean | null;

/** A nested row (`{ ttft: { p50: 3 } }`) as flat columns (`ttft p50`); arrays are left out (samples). */
function flatten(value: unknown, prefix = '', into: Record<string, Cell> = {}): Record<string, Cell> {
  if (value === null || typeof value !== 'object') {
    into[prefix || 'value'] = value as Cell;
    return into;
  }
  if (Array.isArray(value)) return into;
  for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix} ${key}` : key, into);
  return into;
}

const escape = (cell: Cell | undefined) => String(cell ?? '').replace(/\|/g, '\\|');

function markdownTable(rows: readonly unknown[]): string {
  const flat = rows.map((row) => flatten(row));
  const columns = [...new Set(flat.flatMap((row) => Object.keys(row)))];
  return [
    `| ${columns.map((c) => escape(c)).join(' | ')} |`,
    `| ${columns.map(() => '---').join(' | ')} |`,
    ...flat.map((row) => `| ${columns.map((c) => escape(row[c])).join(' | ')} |`),
  ].join('\n');
}

/**
 * What a result shows: the table its benchmark printed (`table`), else its `rows` (or `row`) as a table, else its
 * top-level numbers.
 */
function body(result: Record<string, unknown>): string {
  if (typeof result['table'] === 'string') return `\`\`\`text\n${result['table'].trimEnd()}\n\`\`\``;
  const rows = Array.isArray(result['rows']) ? result['rows'] : result['row'] ? [result['row']] : null;
  if (rows?.length) return markdownTable(rows);
  const scalars = Object.entries(result).filter(
    ([key, value]) =>
      !['command', 'date', 'machine'].includes(key) && (value === null || typeof value !== 'object'),
  );
  return scalars.length ? markdownTable([Object.fromEntries(scalars)]) : 'Only samples: see the JSON file.';
}

function machineOf(result: Record<string, unknown>): string {
  const machine = (result['machine'] ?? {}) as { cpus?: number; cpu?: string; memoryGiB?: number };
  return `${machine.cpus ?? '?'} × ${machine.cpu ?? '?'}, ${machine.memoryGiB ?? '?'} GiB`;
}

/** The page: one section per result file, in file order, each with its command, date and machine. */
export function renderBenchmarksPage(results: readonly CommittedResult[]): string {
  const sections = [...results]
    .sort((a, b) => a.file.localeCompare(b.file))
    .map(({ file, result }) =>
      [
        `## ${file.replace(/\.json$/, '')}`,
        '',
        `- Command: \`${String(result['command'] ?? '?')}\``,
        `- Date: ${String(result['date'] ?? '?')}`,
        `- Machine: ${machineOf(result)}`,
        `- Result: [\`${RESULTS_DIR}/${file}\`](../${RESULTS_DIR}/${file})`,
        '',
        body(result),
      ].join('\n'),
    );
  return [
    '# Benchmarks',
    '',
    'The latest result of every benchmark, written by the benchmarks themselves each time one of them writes its',
    `result to \`${RESULTS_DIR}/\` (do not edit by hand). Each section names the command that reproduces it, when it`,
    'ran and on what machine; the JSON file beside it has every sample.',
    '',
    ...sections.flatMap((section) => [section, '']),
  ].join('\n');
}

/** Every committed result under `root`. */
export function readCommittedResults(root: string): CommittedResult[] {
  const dir = path.join(root, RESULTS_DIR);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({
      file,
      result: JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>,
    }));
}

/** Rewrites `docs/benchmarks.md` from the committed results. */
export function writeBenchmarksPage(root: string): void {
  writeFileSync(path.join(root, BENCHMARKS_PAGE), renderBenchmarksPage(readCommittedResults(root)));
}
