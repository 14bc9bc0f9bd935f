import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { navigate } from '../../router';
import { ErrorNote } from '../common/ErrorNote';
import type { Experiment } from './types';
import { CreateExperiment } from './CreateExperiment';

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
        <div className="table-scroll" role="region" aria-label="Experiments" tabIndex={0}>
          <table className="data-table">
            <caption className="visually-hidden">Experiments, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Arms</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {experiments.map((e) => (
                <tr key={e.id}>
                  <td>
                    <a
                      href={`/experiments/${e.id}`}
                      onClick={(event) => {
                        event.preventDefault();
                        navigate(`/experiments/${e.id}`);
                      }}
                    >
                      {e.name}
                    </a>
                  </td>
                  <td>
                    <span className={`status status-${e.status}`}>{e.status}</span>
                  </td>
                  <td>{e.arms.map((a) => a.id).join(', ')}</td>
                  <td>{new Date(e.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <CreateExperiment onCreated={(e) => navigate(`/experiments/${e.id}`)} />
    </section>
  );
}
