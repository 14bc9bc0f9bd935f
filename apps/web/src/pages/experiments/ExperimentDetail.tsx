import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import type { Results } from './types';
import { ExperimentHistory } from './ExperimentHistory';
import { MetricSection } from './MetricSection';
import { ErrorNote } from '../../ui/ErrorNote';
import { fmt, metricLabel } from '../../ui/format';
import { AppLink } from '../../ui/AppLink';
import { DataTable } from '../../ui/DataTable';

export function ExperimentDetail({ id }: { id: string }) {
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/experiments/{id}/results', {
      params: { path: { id } },
    });
    if (data) setResults(data);
    else setError(errorMessage(failure, 'Could not load the results'));
  }, [id]);
  useEffect(() => void load(), [load]);

  const act = async (action: 'start' | 'stop' | 'promote', armId?: string) => {
    setBusy(true);
    setError(null);
    const params = { path: { id } };
    const { error: failure } =
      action === 'start'
        ? await api.POST('/v1/experiments/{id}/start', { params })
        : action === 'stop'
          ? await api.POST('/v1/experiments/{id}/stop', { params, body: {} })
          : await api.POST('/v1/experiments/{id}/promote', { params, body: { armId: armId ?? '' } });
    setBusy(false);
    if (failure) {
      setError(errorMessage(failure, `Could not ${action} the experiment`));
      return;
    }
    setStatus(
      action === 'start'
        ? 'Experiment started.'
        : action === 'stop'
          ? 'Experiment stopped.'
          : `Arm ${armId ?? ''} promoted.`,
    );
    await load();
  };

  const experiment = results?.experiment;
  return (
    <section className="page experiments">
      <p>
        <AppLink to="/experiments">← All experiments</AppLink>
      </p>
      <h1>{experiment ? experiment.name : 'Experiment'}</h1>
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {!results || !experiment ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <p>
            Status: <span className={`status status-${experiment.status}`}>{experiment.status}</span>
            {experiment.audience && <> · {experiment.audience.trafficPercent}% of users</>}
            {experiment.promotedArmId && <> · promoted arm {experiment.promotedArmId}</>}
          </p>
          {experiment.stopReason && (
            <p className="note">
              <strong>Stop reason:</strong> {experiment.stopReason}
            </p>
          )}
          <div className="button-row" role="group" aria-label="Experiment actions">
            {experiment.status === 'draft' && (
              <button type="button" disabled={busy} onClick={() => void act('start')}>
                Start
              </button>
            )}
            {experiment.status === 'running' && (
              <button type="button" className="danger" disabled={busy} onClick={() => void act('stop')}>
                Stop
              </button>
            )}
            {(experiment.status === 'running' || experiment.status === 'stopped') &&
              experiment.arms.map((arm) => (
                <button
                  key={arm.id}
                  type="button"
                  className="secondary"
                  disabled={busy}
                  onClick={() => void act('promote', arm.id)}
                >
                  Promote {arm.id}
                </button>
              ))}
          </div>

          <h2>Arms</h2>
          <DataTable label="Arms" columns={['Arm', 'Checkpoint', 'Weight', 'Users']}>
            {results.arms.map((arm) => (
              <tr key={arm.id}>
                <th scope="row">
                  {arm.id}
                  {arm.control && <span className="muted"> (control)</span>}
                </th>
                <td>{arm.checkpointId}</td>
                <td>{fmt(arm.weight)}</td>
                <td>{arm.users}</td>
              </tr>
            ))}
          </DataTable>
          <p className={results.srm.alert ? 'error' : 'muted'}>
            Sample ratio mismatch: p = {fmt(results.srm.pValue)}
            {results.srm.alert ? ' — the split is off; do not trust these results.' : ''}
          </p>
          {results.guardrails.some((g) => g.breached) && (
            <p className="error">
              Guardrail breached:{' '}
              {results.guardrails
                .filter((g) => g.breached)
                .map((g) => `${metricLabel(g.metric)} on ${g.armId}`)
                .join(', ')}
            </p>
          )}

          <p className={results.decision.verdict ? 'note' : 'muted'}>
            <strong>Decision on {metricLabel(results.decision.metric)}:</strong>{' '}
            {results.decision.verdict === 'promote'
              ? `promote ${results.decision.armId ?? ''}: `
              : results.decision.verdict === 'stop'
                ? `stop, ${results.decision.armId ?? ''} loses: `
                : ''}
            {results.decision.reason}
          </p>

          <h2>Results</h2>
          {results.metrics.map((metric) => (
            <MetricSection key={metric.metric} metric={metric} />
          ))}
          <ExperimentHistory id={id} version={experiment.status} />
        </>
      )}
    </section>
  );
}
