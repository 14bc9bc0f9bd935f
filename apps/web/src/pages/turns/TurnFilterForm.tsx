import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, type Reply } from '../../api/client';
import { dayAfter, dayBefore, dayOf, dayStart, type FilterValues } from './filters';

type Checkpoint = Reply<'get', '/v1/checkpoints'>['items'][number];

const RANGES = [
  { label: 'Empathy', min: 'empathyMin', max: 'empathyMax' },
  { label: 'Humanlike', min: 'humanlikeMin', max: 'humanlikeMax' },
  { label: 'Live emotion', min: 'liveEmotionMin', max: 'liveEmotionMax' },
  { label: 'Implicit', min: 'implicitMin', max: 'implicitMax' },
] as const;

/**
 * The turn filters most analyses need, labelled; applying them puts them in the address (shareable, reloadable).
 * Filters the form does not show (an experiment, a labeller version…) stay as the address gives them.
 */
export function TurnFilterForm({
  initial,
  characters,
  onApply,
}: {
  initial: FilterValues;
  characters: { id: string; name: string }[];
  onApply: (values: FilterValues) => void;
}) {
  const id = useId();
  const [values, setValues] = useState<FilterValues>(initial);
  const [checkpoints, setCheckpoints] = useState<Checkpoint[]>([]);

  useEffect(() => {
    let active = true;
    void api.GET('/v1/checkpoints').then(({ data }) => {
      if (active && data) setCheckpoints(data.items);
    });
    return () => {
      active = false;
    };
  }, []);

  const set = (change: FilterValues) => setValues((current) => ({ ...current, ...change }));
  const text = (key: keyof FilterValues) => ({
    value: values[key] ?? '',
    onChange: (event: { target: { value: string } }) => set({ [key]: event.target.value }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(values);
  };
  // A value from the address that the lists do not hold is still shown (and kept).
  const checkpointIds = checkpoints.map((c) => c.id);
  const characterIds = characters.map((c) => c.id);

  return (
    <form className="panel-form turn-filters" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h2 id={`${id}-title`}>Filters</h2>
      <div className="form-row">
        <label>
          Character
          <select {...text('characterId')}>
            <option value="">Any character</option>
            {characters.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
            {values.characterId && !characterIds.includes(values.characterId) && (
              <option value={values.characterId}>{values.characterId}</option>
            )}
          </select>
        </label>
        <label>
          Checkpoint
          <select {...text('checkpointId')}>
            <option value="">Any checkpoint</option>
            {checkpoints.map((c) => (
              <option key={c.id} value={c.id}>
                {c.id} ({c.modelName})
              </option>
            ))}
            {values.checkpointId && !checkpointIds.includes(values.checkpointId) && (
              <option value={values.checkpointId}>{values.checkpointId}</option>
            )}
          </select>
        </label>
        <label>
          Arm
          <input {...text('armId')} maxLength={64} placeholder="any" />
        </label>
        <label>
          From (UTC day)
          <input
            type="date"
            value={dayOf(values.from)}
            onChange={(e) => set({ from: e.target.value ? dayStart(e.target.value) : '' })}
          />
        </label>
        <label>
          To (UTC day, included)
          <input
            type="date"
            value={dayBefore(values.to)}
            onChange={(e) => set({ to: e.target.value ? dayAfter(e.target.value) : '' })}
          />
        </label>
      </div>
      <div className="form-row">
        {RANGES.map((range) => (
          <fieldset key={range.label} className="range-fields">
            <legend>{range.label}</legend>
            <label>
              At least
              <input type="number" min={-1} max={1} step="any" inputMode="decimal" {...text(range.min)} />
            </label>
            <label>
              At most
              <input type="number" min={-1} max={1} step="any" inputMode="decimal" {...text(range.max)} />
            </label>
          </fieldset>
        ))}
        <fieldset className="range-fields">
          <legend>Live-emotion change</legend>
          <label>
            At least
            <input type="number" min={-10} max={10} step="any" {...text('liveEmotionDeltaMin')} />
          </label>
          <label>
            At most
            <input type="number" min={-10} max={10} step="any" {...text('liveEmotionDeltaMax')} />
          </label>
        </fieldset>
      </div>
      <div className="form-row">
        <label>
          Users
          <select {...text('population')}>
            <option value="">People</option>
            <option value="simulated">Simulated (the RL loop&apos;s)</option>
          </select>
        </label>
        <label>
          Tag
          <input {...text('tag')} maxLength={40} placeholder="any" size={10} />
        </label>
        <label>
          Comment
          <select {...text('hasComment')}>
            <option value="">Any</option>
            <option value="true">Commented</option>
            <option value="false">Not commented</option>
          </select>
        </label>
        <label>
          Labels
          <select {...text('labelStatus')}>
            <option value="">Any finished</option>
            <option value="pending">Pending</option>
            <option value="labelled">All labelled</option>
            <option value="partially_failed">Partly failed</option>
            <option value="failed">Failed</option>
          </select>
        </label>
        <label>
          Thumb
          <select {...text('thumb')}>
            <option value="">Any</option>
            <option value="up">Up</option>
            <option value="down">Down</option>
          </select>
        </label>
        {(
          [
            ['Stars at least', 'starsMin'],
            ['Stars at most', 'starsMax'],
          ] as const
        ).map(([label, field]) => (
          <label key={field}>
            {label}
            <select {...text(field)}>
              <option value="">Any</option>
              {[1, 2, 3, 4, 5].map((n) => (
                <option key={n} value={String(n)}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        ))}
        <label>
          Language
          <input
            {...text('language')}
            pattern="[a-z]{2,3}"
            title="an ISO 639 code in lowercase, for example en"
            placeholder="any"
            size={4}
          />
        </label>
      </div>
      <div className="button-row">
        <button type="submit">Apply filters</button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            setValues({});
            onApply({});
          }}
        >
          Clear filters
        </button>
      </div>
    </form>
  );
}
