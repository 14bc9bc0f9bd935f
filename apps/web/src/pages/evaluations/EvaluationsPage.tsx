import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import type { StaffPageProps } from '../../staff-page-props';
import { CompareForm } from './CompareForm';
import { ComparisonView } from './ComparisonView';
import type { EvaluationSummary } from './evaluation';
import '../rl-jobs/rl-jobs.css';
import './evaluations.css';
import { AppLink } from '../../ui/AppLink';
import { ErrorNote } from '../../ui/ErrorNote';
import { StatusBadge } from '../../ui/StatusBadge';
import { fmt, shortId, when } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

/** The chosen pair, from the address (`/evaluations?a=<id>&b=<id>`), so that a comparison can be shared. */
function usePair(): { a: string; b: string } | null {
  const read = () => {
    const params = new URLSearchParams(window.location.search);
    const [a, b] = [params.get('a'), params.get('b')];
    return a && b ? { a, b } : null;
  };
  const [pair, setPair] = useState(read);
  useEffect(() => {
    const update = () => setPair(read());
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return pair;
}

/** Evaluations (experimenters, analysts, admins): the list, and two chosen ones' reports side by side. */
export function EvaluationsPage(_props: StaffPageProps) {
  const [evaluations, setEvaluations] = useState<EvaluationSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pair = usePair();

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/evaluations', { params: { query: { limit: 100 } } });
    if (failure) setError(errorMessage(failure, 'Could not load the evaluations'));
    else setEvaluations(data.items);
  }, []);
  useEffect(() => void load(), [load]);

  return (
    <section className="page evaluations">
      <h1>Evaluations</h1>
      <ErrorNote error={error} />
      {evaluations === null ? (
        !error && <p className="muted">Loading…</p>
      ) : evaluations.length === 0 ? (
        <p className="muted">No evaluations yet.</p>
      ) : (
        <>
          <DataTable
            label="Evaluations"
            caption="Evaluations, newest first"
            columns={[
              'Evaluation',
              'Checkpoint',
              'Status',
              'Mode',
              'Profiles',
              'Mean final score',
              'Created',
            ]}
          >
            {evaluations.map((e) => (
              <tr key={e.id}>
                <th scope="row">
                  <code>{shortId(e.id)}</code>
                </th>
                <td>{e.checkpointId}</td>
                <td>
                  <StatusBadge status={e.status} />
                </td>
                <td>{e.mode}</td>
                <td>{e.profiles}</td>
                <td>{fmt(e.metrics?.['meanFinalScore'])}</td>
                <td>{when(e.createdAt)}</td>
              </tr>
            ))}
          </DataTable>
          <CompareForm evaluations={evaluations} pair={pair} />
        </>
      )}
      {pair && <ComparisonView key={`${pair.a}-${pair.b}`} pair={pair} evaluations={evaluations ?? []} />}
      {pair && (
        <p>
          <AppLink to="/evaluations">Clear the comparison</AppLink>
        </p>
      )}
    </section>
  );
}
