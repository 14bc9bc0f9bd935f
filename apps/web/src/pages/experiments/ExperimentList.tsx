import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { navigate } from '../../router';
import type { Experiment } from './types';
import { CreateExperiment } from './CreateExperiment';
import { ErrorNote } from '../../ui/ErrorNote';
import { AppLink } from '../../ui/AppLink';
import { DataTable } from '../../ui/DataTable';

export function ExperimentList() {
  const [experiments, setExperiments] = useState<Experiment[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/experiments');
    if (data) setExperiments(data.items);
    else setError(errorMessage(failure, 'Could not load the experiments'));
  }, []);
  useEffect(() => void load(), [load]);

  return (
    <section className="page experiments">
      <h1>Experiments</h1>
      <ErrorNote error={error} />
      {experiments === null ? (
        <p className="muted">Loading…</p>
      ) : experiments.length === 0 ? (
        <p className="muted">No experiments yet.</p>
      ) : (
        <DataTable
          label="Experiments"
          caption="Experiments, newest first"
          columns={['Name', 'Status', 'Arms', 'Created']}
        >
          {experiments.map((e) => (
            <tr key={e.id}>
              <td>
                <AppLink to={`/experiments/${e.id}`}>{e.name}</AppLink>
              </td>
              <td>
                <span className={`status status-${e.status}`}>{e.status}</span>
              </td>
              <td>{e.arms.map((a) => a.id).join(', ')}</td>
              <td>{new Date(e.createdAt).toLocaleString()}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <CreateExperiment onCreated={(e) => navigate(`/experiments/${e.id}`)} />
    </section>
  );
}
