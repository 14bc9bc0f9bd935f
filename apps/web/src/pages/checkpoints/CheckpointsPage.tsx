import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { api, errorMessage, type Reply } from '../../api/client';
import type { StaffPageProps } from '../../staff-page-props';
import { ErrorNote } from '../../ui/ErrorNote';
import { DataTable } from '../../ui/DataTable';
import { ServedOn } from './ServedOn';

type Checkpoint = Reply<'get', '/v1/checkpoints'>['items'][number];

/** The model checkpoints turns and experiments use: the default, candidates (RL refreshes add them), retired. */
export function CheckpointsPage(_props: StaffPageProps) {
  const [checkpoints, setCheckpoints] = useState<Checkpoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/checkpoints');
    if (data) setCheckpoints(data.items);
    else setError(errorMessage(failure, 'Could not load the checkpoints'));
  }, []);
  useEffect(() => void load(), [load]);

  const retire = async (checkpoint: Checkpoint) => {
    if (!window.confirm(`Retire ${checkpoint.id}? No new turn or experiment will use it.`)) return;
    setError(null);
    const { error: failure } = await api.POST('/v1/checkpoints/{id}/retire', {
      params: { path: { id: checkpoint.id } },
    });
    if (failure) setError(errorMessage(failure, `Could not retire ${checkpoint.id}`));
    else setStatus(`${checkpoint.id} retired.`);
    await load();
  };

  return (
    <section className="page experiments">
      <h1>Checkpoints</h1>
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {checkpoints === null ? (
        <p className="muted">Loading…</p>
      ) : (
        <DataTable
          label="Checkpoints"
          columns={[
            'Checkpoint',
            'Model',
            'Status',
            'Endpoints (adapter served?)',
            'Registered',
            {
              label: (
                <>
                  <span className="visually-hidden">Actions</span>
                </>
              ),
            },
          ]}
        >
          {checkpoints.map((c) => (
            <tr key={c.id} data-checkpoint={c.id}>
              <th scope="row">{c.id}</th>
              <td>{c.modelName}</td>
              <td>
                <span className="status">{c.isDefault ? `${c.status}, default` : c.status}</span>
              </td>
              <td>
                <ServedOn checkpoint={c} />
              </td>
              <td>{new Date(c.createdAt).toLocaleString()}</td>
              <td>
                {c.status !== 'retired' && !c.isDefault && (
                  <button type="button" className="secondary" onClick={() => void retire(c)}>
                    Retire <span className="visually-hidden">{c.id}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <RegisterCheckpoint
        onRegistered={(c) => {
          setStatus(`${c.id} registered as a ${c.status}.`);
          void load();
        }}
      />
    </section>
  );
}

/** Registers a checkpoint served elsewhere (a vLLM endpoint); RL refreshes register theirs themselves. */
function RegisterCheckpoint({ onRegistered }: { onRegistered: (checkpoint: Checkpoint) => void }) {
  const id = useId();
  const [form, setForm] = useState({ id: '', modelName: '', baseUrl: '' });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST('/v1/checkpoints', {
      body: {
        id: form.id.trim(),
        modelName: form.modelName.trim(),
        endpoints: [{ baseUrl: form.baseUrl.trim() }],
      },
    });
    setBusy(false);
    if (!data) {
      setError(errorMessage(failure, 'Could not register the checkpoint'));
      return;
    }
    setForm({ id: '', modelName: '', baseUrl: '' });
    onRegistered(data);
  };

  const field = (name: keyof typeof form, label: string, type = 'text') => (
    <label>
      {label}
      <input
        type={type}
        required
        value={form[name]}
        onChange={(event) => setForm((f) => ({ ...f, [name]: event.target.value }))}
      />
    </label>
  );

  return (
    <form className="experiment-form" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${id}-title`}>Register a checkpoint</h2>
      <div className="form-row">
        {field('id', 'Checkpoint id')}
        {field('modelName', 'Served model name')}
        {field('baseUrl', 'Endpoint base URL', 'url')}
      </div>
      <ErrorNote error={error} />
      <div className="button-row">
        <button type="submit" disabled={busy}>
          Register
        </button>
      </div>
    </form>
  );
}
