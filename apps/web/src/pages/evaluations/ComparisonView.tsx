import { useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import {
  difference,
  type Comparison,
  type EvaluationSummary,
  metricRows,
  type MetricRow,
} from './evaluation';
import { ReportFrame } from './ReportFrame';
import { ErrorNote } from '../../ui/ErrorNote';
import { fmt, pct } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

const show = (row: MetricRow, value: number | null) => (row.kind === 'rate' ? pct(value) : fmt(value));
const signed = (row: MetricRow, value: number | null) => {
  if (value === null) return '–';
  const text = row.kind === 'rate' ? `${(value * 100).toFixed(1)} pts` : fmt(value);
  return value > 0 ? `+${text}` : text;
};

/** Two evaluations' reports side by side: their figures with the difference (B − A), and each HTML report. */
export function ComparisonView({
  pair,
  evaluations,
}: {
  pair: { a: string; b: string };
  evaluations: EvaluationSummary[];
}) {
  const [comparison, setComparison] = useState<Comparison | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    void api.GET('/v1/evaluations/compare', { params: { query: pair } }).then(({ data, error: failure }) => {
      if (failure) setError(errorMessage(failure, 'Could not compare these evaluations'));
      else setComparison(data);
    });
  }, [pair]);

  const checkpoint = (id: string) => evaluations.find((e) => e.id === id)?.checkpointId ?? id.slice(0, 8);
  const [nameA, nameB] = [checkpoint(pair.a), checkpoint(pair.b)];
  return (
    <section className="comparison" aria-labelledby="comparison-title">
      <h2 id="comparison-title">
        A: {nameA} vs B: {nameB}
      </h2>
      <ErrorNote error={error} />
      {!comparison ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <DataTable
            label="Metrics side by side"
            caption={`Metrics of A (${nameA}) and B (${nameB}), with the difference B − A`}
            className="comparison-table"
            columns={['Metric', `A: ${nameA}`, `B: ${nameB}`, 'Δ (B − A)']}
          >
            {metricRows(comparison).map((row) => {
              const delta = difference(row);
              return (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  <td>{show(row, row.a)}</td>
                  <td>{show(row, row.b)}</td>
                  <td className={delta === null || delta === 0 ? '' : delta > 0 ? 'delta-up' : 'delta-down'}>
                    {signed(row, delta)}
                  </td>
                </tr>
              );
            })}
          </DataTable>
          <div className="reports">
            <ReportFrame side="A" id={pair.a} report={comparison.a} />
            <ReportFrame side="B" id={pair.b} report={comparison.b} />
          </div>
        </>
      )}
    </section>
  );
}
