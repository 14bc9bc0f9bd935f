import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../../api/client';
import type { Checkpoint, Experiment } from './types';
import { ErrorNote } from '../../ui/ErrorNote';

interface ArmDraft {
  key: number;
  id: string;
  checkpointId: string;
  weight: string;
}

export function CreateExperiment({ onCreated }: { onCreated: (experiment: Experiment) => void }) {
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
      if (!data) {
        setError(errorMessage(failure, 'Could not load the checkpoints'));
        return;
      }
      const usable = data.items.filter((c) => c.status !== 'retired');
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
    if (data) onCreated(data);
    else setError(errorMessage(failure, 'Could not create the experiment'));
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
