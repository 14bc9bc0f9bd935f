import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../../api/client';
import { navigate } from '../../router';
import type { RlJobSummary } from './rl-job';
import { AppLink } from '../../ui/AppLink';
import { ErrorNote } from '../../ui/ErrorNote';
import { StatusBadge } from '../../ui/StatusBadge';
import { shortId, when } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

export function RlJobList() {
  const [jobs, setJobs] = useState<RlJobSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/rl/jobs', { params: { query: { limit: 50 } } });
    if (failure) setError(errorMessage(failure, 'Could not load the RL jobs'));
    else setJobs(data.items);
  }, []);
  useEffect(() => void load(), [load]);

  return (
    <section className="page rl-jobs">
      <h1>RL jobs</h1>
      <StartRefresh />
      <h2>Recent jobs</h2>
      <ErrorNote error={error} />
      {jobs === null ? (
        !error && <p className="muted">Loading…</p>
      ) : jobs.length === 0 ? (
        <p className="muted">No RL jobs yet.</p>
      ) : (
        <DataTable
          label="RL jobs"
          caption="RL jobs, newest first"
          columns={['Job', 'Status', 'Trigger', 'Template', 'Created', 'Finished', 'Reason', 'Checkpoint']}
        >
          {jobs.map((job) => (
            <tr key={job.id}>
              <th scope="row">
                <AppLink to={`/rl-jobs/${job.id}`} label={`Job ${shortId(job.id)}`}>
                  <code>{shortId(job.id)}</code>
                </AppLink>
              </th>
              <td>
                <StatusBadge status={job.status} />
              </td>
              <td>{job.trigger}</td>
              <td>{job.template}</td>
              <td>{when(job.createdAt)}</td>
              <td>{when(job.finishedAt)}</td>
              <td className="rl-reason">{job.reason ?? '–'}</td>
              <td>{job.checkpointId ?? '–'}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

/** "Start a refresh": a refresh by hand, with an optional note; one already running is said plainly. */
function StartRefresh() {
  const id = useId();
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setRunning(null);
    const trimmed = note.trim();
    const { data, error: failure } = await api.POST('/v1/rl/jobs', {
      body: trimmed ? { note: trimmed } : {},
    });
    setBusy(false);
    if (data) {
      navigate(`/rl-jobs/${data.id}`);
      return;
    }
    const details = (failure as { error?: { code?: string; details?: { jobId?: string | null } } }).error;
    if (details?.code === 'refresh_running') {
      setError('A refresh is already running: cancel it or wait for it to end.');
      setRunning(details.details?.jobId ?? null);
    } else setError(errorMessage(failure, 'Could not start a refresh'));
  };

  return (
    <form className="rl-start" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${id}-title`} className="visually-hidden">
        Start a refresh
      </h2>
      <label>
        Note (optional)
        <input value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        Start a refresh
      </button>
      {error && (
        <div role="alert" className="error rl-start-error">
          {error}
          {running && (
            <>
              {' '}
              <AppLink to={`/rl-jobs/${running}`}>Open the running job</AppLink>
            </>
          )}
        </div>
      )}
    </form>
  );
}
