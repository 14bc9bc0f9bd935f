import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api/client';
import { navigate } from '../router';
import type { StaffPageProps } from '../staff-pages';
import { DifferenceChart } from './DifferenceChart';

// The gateway documents these responses as open objects: their shapes, from experiments and results services.
interface Arm {
  id: string;
  checkpointId: string;
  weight: number;
  control: boolean;
}

interface Experiment {
  id: string;
  name: string;
  status: 'draft' | 'running' | 'stopped' | 'promoted';
  arms: Arm[];
  audience: { trafficPercent: number } | null;
  stopReason: string | null;
  promotedArmId: string | null;
  createdAt: string;
}

interface Checkpoint {
  id: string;
  modelName: string;
  status: string;
  isDefault: boolean;
}

type Interval = [number, number];

export interface Comparison {
  armId: string;
  welch: { difference: number; relativeDifference: number | null; pValue: number; ci: Interval } | null;
  sequential: { pValue: number | null; ci: Interval } | null;
  probabilityToBeatControl: number | null;
}

interface MetricResult {
  metric: string;
  guardrail: string | null;
  arms: { armId: string; users: number; turns: number; mean: number | null; ci: Interval | null }[];
  comparisons: Comparison[];
}

interface Results {
  experiment: Experiment;
  arms: (Arm & { users: number })[];
  srm: { chiSquare: number; pValue: number; alert: boolean };
  metrics: MetricResult[];
  guardrails: { metric: string; armId: string; breached: boolean }[];
}

/** A number in a few significant digits; a dash when there is none. */
export function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

const fmtInterval = (ci: Interval | null) => (ci ? `[${fmt(ci[0])}, ${fmt(ci[1])}]` : '–');

/** "live_emotion_delta" → "Live emotion delta". */
const metricLabel = (name: string) => {
  const words = name.replace(/_/g, ' ').replace('ttft ms', 'time to first token (ms)');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}

/** Experiments over checkpoints (experimenters and admins): the list and a new one, or one's results. */
export function ExperimentsPage({ id }: StaffPageProps) {
  return id ? <ExperimentDetail id={id} /> : <ExperimentList />;
}

function ExperimentList() {
  const [experiments, setExperiments] = useState<Experiment[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/experiments');
    if (failure) setError(errorMessage(failure, 'Could not load the experiments'));
    else setExperiments((data as { items: Experiment[] }).items);
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

interface ArmDraft {
  key: number;
  id: string;
  checkpointId: string;
  weight: string;
}

function CreateExperiment({ onCreated }: { onCreated: (experiment: Experiment) => void }) {
  const id = useId();
  const [checkpoints, setCheckpoints] = useState<Checkpoint[]>([]);
  const [name, setName] = useState('');
  const [traffic, setTraffic] = useState('100');
  const [arms, setArms] = useState<ArmDraft[]>([
    { key: 0, id: 'control', checkpointId: '', weight: '50' },
    { key: 1, id: 'treatment', checkpointId: '', weight: '50' },
  ]);
  const [nextKey, setNextKey] = useState(2);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void api.GET('/v1/checkpoints').then(({ data, error: failure }) => {
      if (failure) {
        setError(errorMessage(failure, 'Could not load the checkpoints'));
        return;
      }
      const usable = (data as { items: Checkpoint[] }).items.filter((c) => c.status !== 'retired');
      setCheckpoints(usable);
      const fallback = usable.find((c) => c.isDefault)?.id ?? usable[0]?.id ?? '';
      setArms((current) => current.map((a) => (a.checkpointId ? a : { ...a, checkpointId: fallback })));
    });
  }, []);

  const update = (key: number, change: Partial<ArmDraft>) =>
    setArms((current) => current.map((a) => (a.key === key ? { ...a, ...change } : a)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    const { data, error: failure } = await api.POST('/v1/experiments', {
      body: {
        name: name.trim(),
        audience: { trafficPercent: Number(traffic) },
        arms: arms.map((a, index) => ({
          id: a.id.trim(),
          checkpointId: a.checkpointId,
          weight: Number(a.weight),
          control: index === 0,
        })),
      },
    });
    setBusy(false);
    if (failure) setError(errorMessage(failure, 'Could not create the experiment'));
    else onCreated(data as Experiment);
  };

  return (
    <form className="experiment-form" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${id}-title`}>New experiment</h2>
      <div className="form-row">
        <label>
          Name
          <input value={name} required maxLength={120} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Traffic (% of users)
          <input
            type="number"
            min={0}
            max={100}
            step="any"
            required
            value={traffic}
            onChange={(e) => setTraffic(e.target.value)}
          />
        </label>
      </div>
      {arms.map((arm, index) => {
        const role = index === 0 ? 'Control arm' : `Treatment arm ${index}`;
        return (
          <fieldset key={arm.key} className="arm-fields">
            <legend>{role}</legend>
            <label>
              Arm id
              <input
                value={arm.id}
                required
                pattern="[a-z0-9][a-z0-9_\-]{0,31}"
                title="lowercase letters, digits, - and _ (at most 32)"
                onChange={(e) => update(arm.key, { id: e.target.value })}
              />
            </label>
            <label>
              Checkpoint
              <select
                value={arm.checkpointId}
                required
                onChange={(e) => update(arm.key, { checkpointId: e.target.value })}
              >
                {checkpoints.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.id} ({c.modelName}){c.isDefault ? ', default' : ''}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Weight
              <input
                type="number"
                min={0}
                max={1000}
                step="any"
                required
                value={arm.weight}
                onChange={(e) => update(arm.key, { weight: e.target.value })}
              />
            </label>
            {index > 1 && (
              <button
                type="button"
                className="secondary"
                onClick={() => setArms((current) => current.filter((a) => a.key !== arm.key))}
              >
                Remove {role.toLowerCase()}
              </button>
            )}
          </fieldset>
        );
      })}
      <ErrorNote error={error} />
      <div className="button-row">
        <button
          type="button"
          className="secondary"
          disabled={arms.length >= 10}
          onClick={() => {
            setArms((current) => [
              ...current,
              {
                key: nextKey,
                id: `treatment-${current.length}`,
                checkpointId: checkpoints[0]?.id ?? '',
                weight: '50',
              },
            ]);
            setNextKey(nextKey + 1);
          }}
        >
          Add a treatment arm
        </button>
        <button type="submit" disabled={busy}>
          Create experiment
        </button>
      </div>
    </form>
  );
}

function ExperimentDetail({ id }: { id: string }) {
  const [results, setResults] = useState<Results | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/experiments/{id}/results', {
      params: { path: { id } },
    });
    if (failure) setError(errorMessage(failure, 'Could not load the results'));
    else setResults(data as Results);
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
        <a
          href="/experiments"
          onClick={(event) => {
            event.preventDefault();
            navigate('/experiments');
          }}
        >
          ← All experiments
        </a>
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
          <div className="table-scroll" role="region" aria-label="Arms" tabIndex={0}>
            <table className="data-table">
              <thead>
                <tr>
                  <th scope="col">Arm</th>
                  <th scope="col">Checkpoint</th>
                  <th scope="col">Weight</th>
                  <th scope="col">Users</th>
                </tr>
              </thead>
              <tbody>
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
              </tbody>
            </table>
          </div>
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

          <h2>Results</h2>
          {results.metrics.map((metric) => (
            <MetricSection key={metric.metric} metric={metric} />
          ))}
        </>
      )}
    </section>
  );
}

function MetricSection({ metric }: { metric: MetricResult }) {
  const id = useId();
  const title = metricLabel(metric.metric);
  return (
    <section className="metric" aria-labelledby={`${id}-title`} data-metric={metric.metric}>
      <h3 id={`${id}-title`}>
        {title}
        {metric.guardrail && <span className="muted"> (guardrail)</span>}
      </h3>
      <div className="metric-body">
        <div className="table-scroll" role="region" aria-label={`${title} by arm`} tabIndex={0}>
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Arm</th>
                <th scope="col">Users</th>
                <th scope="col">Mean</th>
                <th scope="col">95% CI</th>
                <th scope="col">Δ vs control [95% CI]</th>
                <th scope="col">p</th>
              </tr>
            </thead>
            <tbody>
              {metric.arms.map((arm) => {
                const comparison = metric.comparisons.find((c) => c.armId === arm.armId);
                return (
                  <tr key={arm.armId}>
                    <th scope="row">{arm.armId}</th>
                    <td>{arm.users}</td>
                    <td>{fmt(arm.mean)}</td>
                    <td>{fmtInterval(arm.ci)}</td>
                    <td>
                      {comparison?.welch
                        ? `${fmt(comparison.welch.difference)} ${fmtInterval(comparison.welch.ci)}`
                        : comparison
                          ? '–'
                          : 'control'}
                    </td>
                    <td>{fmt(comparison?.welch?.pValue)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {metric.comparisons.length > 0 && <DifferenceChart title={title} comparisons={metric.comparisons} />}
      </div>
    </section>
  );
}
