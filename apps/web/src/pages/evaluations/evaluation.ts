import type { Reply } from '../../api/client';

export type EvaluationSummary = Reply<'get', '/v1/evaluations'>['items'][number];
export type Comparison = Reply<'get', '/v1/evaluations/compare'>;
export type Report = Comparison['a'];

export interface MetricRow {
  label: string;
  a: number | null;
  b: number | null;
  /** How the values read: a plain number or a share. */
  kind: 'number' | 'rate';
}

type Group = Report['metrics'];

const groupRows = (
  prefix: string,
  a: Partial<Group> | undefined,
  b: Partial<Group> | undefined,
): MetricRow[] => [
  {
    label: `${prefix}mean final score`,
    a: a?.meanFinalScore ?? null,
    b: b?.meanFinalScore ?? null,
    kind: 'number',
  },
  { label: `${prefix}success rate`, a: a?.successRate ?? null, b: b?.successRate ?? null, kind: 'rate' },
  { label: `${prefix}failure rate`, a: a?.failureRate ?? null, b: b?.failureRate ?? null, kind: 'rate' },
];

/** The two reports' figures row by row: overall, EPM when either has it, then per hidden need. */
export function metricRows({ a, b }: Comparison): MetricRow[] {
  const rows: MetricRow[] = [
    { label: 'Episodes', a: a.metrics.count, b: b.metrics.count, kind: 'number' },
    { label: 'Errors', a: a.metrics.errors, b: b.metrics.errors, kind: 'number' },
    ...groupRows('', a.metrics, b.metrics).map((row) => ({
      ...row,
      label: row.label.charAt(0).toUpperCase() + row.label.slice(1),
    })),
  ];
  if (a.epm || b.epm) {
    rows.push(
      {
        label: 'EPM success rate',
        a: a.epm?.successRate ?? null,
        b: b.epm?.successRate ?? null,
        kind: 'rate',
      },
      {
        label: 'EPM failure rate',
        a: a.epm?.failureRate ?? null,
        b: b.epm?.failureRate ?? null,
        kind: 'rate',
      },
      {
        label: 'EPM mean energy ratio',
        a: a.epm?.meanEnergyRatio ?? null,
        b: b.epm?.meanEnergyRatio ?? null,
        kind: 'number',
      },
      {
        label: 'EPM-Q index (0–100)',
        a: a.epm?.epmQ?.index ?? null,
        b: b.epm?.epmQ?.index ?? null,
        kind: 'number',
      },
    );
  }
  const needs = [
    ...new Set([...Object.keys(a.metrics.byHiddenNeed), ...Object.keys(b.metrics.byHiddenNeed)]),
  ];
  for (const need of needs.sort()) {
    const [left, right] = [a.metrics.byHiddenNeed[need], b.metrics.byHiddenNeed[need]];
    if (!left?.count && !right?.count) continue;
    rows.push(groupRows(`${need}: `, left, right)[0] as MetricRow);
  }
  return rows;
}

export const difference = (row: MetricRow): number | null =>
  row.a === null || row.b === null ? null : row.b - row.a;
