import { useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { ErrorNote, num, pct } from '../rl-jobs/ui';
import {
  difference,
  type Comparison,
  type EvaluationSummary,
  metricRows,
  type MetricRow,
} from './evaluation';
import { ReportFrame } from './ReportFrame';

const show = (row: MetricRow, value: number | null) => (row.kind === 'rate' ? pct(value) : num(value));
const signed = (row: MetricRow, value: number | null) => {
  if (value === null) return '–';
  const text = row.kind === 'rate' ? `${(value * 100).toFixed(1)} pts` : num(value);
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
          <div className="table-scroll" role="region" aria-label="Metrics side by side" tabIndex={0}>
            <table className="data-table comparison-table">
              <caption className="visually-hidden">
                Metrics of A ({nameA}) and B ({nameB}), with the difference B − A
              </caption>
              <thead>
                <tr>
                  <th scope="col">Metric</th>
                  <th scope="col">A: {nameA}</th>
                  <th scope="col">B: {nameB}</th>
                  <th scope="col">Δ (B − A)</th>
                </tr>
              </thead>
              <tbody>
                {metricRows(comparison).map((row) => {
                  const delta = difference(row);
                  return (
                    <tr key={row.label}>
                      <th scope="row">{row.label}</th>
                      <td>{show(row, row.a)}</td>
                      <td>{show(row, row.b)}</td>
                      <td
                        className={delta === null || delta === 0 ? '' : delta > 0 ? 'delta-up' : 'delta-down'}
                      >
                        {signed(row, delta)}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <div className="reports">
            <ReportFrame side="A" id={pair.a} report={comparison.a} />
            <ReportFrame side="B" id={pair.b} report={comparison.b} />
          </div>
        </>
      )}
    </section>
  );
}
