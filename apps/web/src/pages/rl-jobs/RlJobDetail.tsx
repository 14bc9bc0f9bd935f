import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage, type Reply } from '../../api/client';
import { ServedOn } from '../checkpoints/ServedOn';
import { isFinished, type RlJob } from './rl-job';
import { JobResults } from './JobResults';
import { StageList } from './StageList';
import { AppLink } from '../../ui/AppLink';
import { ErrorNote } from '../../ui/ErrorNote';
import { StatusBadge } from '../../ui/StatusBadge';
import { shortId, when } from '../../ui/format';

type Checkpoint = Reply<'get', '/v1/checkpoints'>['items'][number];

/** How often an unfinished job is read again. */
export const REFRESH_MS = 3_000;

export function RlJobDetail({ id }: { id: string }) {
  const [job, setJob] = useState<RlJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/rl/jobs/{id}', { params: { path: { id } } });
    if (failure) setError(errorMessage(failure, 'Could not load the RL job'));
    else {
      setError(null);
      setJob(data);
    }
  }, [id]);
  useEffect(() => void load(), [load]);

  // Where the job's adapter is served (the checkpoint registry), read with the job.
  const [checkpoint, setCheckpoint] = useState<Checkpoint | null>(null);
  const checkpointId = job?.checkpointId ?? null;
  useEffect(() => {
    if (!checkpointId) return;
    void api.GET('/v1/checkpoints').then(({ data }) => {
      setCheckpoint(data?.items.find((c) => c.id === checkpointId) ?? null);
    });
  }, [checkpointId, job?.updatedAt]);

  // Read again every few seconds until the job ends (and not while the tab is hidden).
  const finished = job ? isFinished(job.status) : false;
  useEffect(() => {
    if (!job || finished) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [job, finished, load]);

  const cancel = async () => {
    setBusy(true);
    setStatus('');
    const { error: failure } = await api.POST('/v1/rl/jobs/{id}/cancel', { params: { path: { id } } });
    setBusy(false);
    if (failure) setError(errorMessage(failure, 'Could not cancel the job'));
    else {
      setStatus('Cancellation requested; the job stops at its next step.');
      await load();
    }
  };

  return (
    <section className="page rl-jobs">
      <p>
        <AppLink to="/rl-jobs">← All RL jobs</AppLink>
      </p>
      <h1>RL job {shortId(id)}</h1>
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {!job ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <dl className="rl-facts">
            <div>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={job.status} />
                {job.cancelRequested && !finished && <span className="muted"> (cancelling)</span>}
              </dd>
            </div>
            <div>
              <dt>Trigger</dt>
              <dd>{job.trigger}</dd>
            </div>
            <div>
              <dt>Template</dt>
              <dd>
                {job.template} on {job.runner}
              </dd>
            </div>
            <div>
              <dt>Created</dt>
              <dd>{when(job.createdAt)}</dd>
            </div>
            <div>
              <dt>Finished</dt>
              <dd>{when(job.finishedAt)}</dd>
            </div>
            <div>
              <dt>Checkpoint</dt>
              <dd>
                {job.checkpointId ?? '–'}
                {checkpoint && (
                  <>
                    {' '}
                    <span className="muted">({checkpoint.status})</span>
                    <ServedOn checkpoint={checkpoint} />
                  </>
                )}
              </dd>
            </div>
          </dl>
          {job.reason && (
            <p className="note">
              <strong>Reason:</strong> {job.reason}
            </p>
          )}
          {!finished && (
            <div className="button-row">
              <button
                type="button"
                className="danger"
                disabled={busy || job.cancelRequested}
                onClick={() => void cancel()}
              >
                Cancel job
              </button>
              <span className="muted">Refreshes every {REFRESH_MS / 1000} s while it runs.</span>
            </div>
          )}
          <StageList job={job} />
          <JobResults job={job} />
          <h2 id="rl-logs-title">Logs</h2>
          {job.logsTail ? (
            <pre className="rl-logs" tabIndex={0} aria-labelledby="rl-logs-title">
              {job.logsTail}
            </pre>
          ) : (
            <p className="muted">No log lines yet.</p>
          )}
        </>
      )}
    </section>
  );
}
