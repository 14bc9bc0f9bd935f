import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BENCHMARKS_PAGE, readCommittedResults, renderBenchmarksPage } from './benchmarks-page';

const ROOT = path.resolve(__dirname, '../../../..');
const machine = { cpus: 2, cpu: 'AMD EPYC', memoryGiB: 24 };
const head = {
  command: 'node -r @swc-node/register bench/x.ts --n 3',
  date: '2026-12-04T10:00:00.000Z',
  machine,
};

describe('docs/benchmarks.md', () => {
  it('is what the committed results render to: only a benchmark writes it', () => {
    const committed = readFileSync(path.join(ROOT, BENCHMARKS_PAGE), 'utf8');
    expect(committed).toBe(renderBenchmarksPage(readCommittedResults(ROOT)));
  });

  it('shows each result with its command, date, machine and the table its benchmark printed', () => {
    const page = renderBenchmarksPage([
      { file: 'b.json', result: { ...head, table: 'a | b\n--|--\n1 | 2\n' } },
      {
        file: 'a.json',
        result: { ...head, rows: [{ name: 'direct', ttft: { p50: 3, p99: 9 }, samples: [1] }] },
      },
    ]);
    expect(page.indexOf('## a')).toBeLessThan(page.indexOf('## b'));
    expect(page).toContain('- Command: `node -r @swc-node/register bench/x.ts --n 3`');
    expect(page).toContain('- Date: 2026-12-04T10:00:00.000Z');
    expect(page).toContain('- Machine: 2 × AMD EPYC, 24 GiB');
    expect(page).toContain('```text\na | b\n--|--\n1 | 2\n```');
    // A result without a printed table: its rows, nested values as columns, samples left out.
    expect(page).toContain('| name | ttft p50 | ttft p99 |\n| --- | --- | --- |\n| direct | 3 | 9 |');
  });

  it('shows the top-level numbers of a result that has neither a table nor rows', () => {
    const page = renderBenchmarksPage([
      { file: 'c.json', result: { ...head, streams: 50, ok: true, samples: [1, 2] } },
    ]);
    expect(page).toContain('| streams | ok |\n| --- | --- |\n| 50 | true |');
  });
});
