import { useId, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../../api/client';
import { describeFilters, filterSearch, type FilterValues, toApiFilters } from '../turns/filters';
import { type DatasetExport, FORMATS, KINDS } from './types';
import { ErrorNote } from '../../ui/ErrorNote';
import { AppLink } from '../../ui/AppLink';

/**
 * Starts an export: what (labelled turns or preference pairs), as what (JSONL or CSV), and optionally only the
 * turns the Turns page's filters chose (they come in the address, from its "Export these turns" link).
 */
export function ExportForm({
  turnFilters,
  names,
  onStarted,
}: {
  turnFilters: FilterValues;
  names: Map<string, string>;
  onStarted: (started: DatasetExport) => void;
}) {
  const id = useId();
  const [kind, setKind] = useState<(typeof KINDS)[number]['value']>('turns');
  const [format, setFormat] = useState<(typeof FORMATS)[number]['value']>('jsonl');
  const filters = toApiFilters(turnFilters);
  const described = describeFilters(filters, names);
  const [useFilters, setUseFilters] = useState(described !== '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const { data, error: failure } = await api.POST('/v1/exports', {
      body: { kind, format, filters: useFilters ? filters : {} },
    });
    setBusy(false);
    if (data) onStarted(data);
    else setError(errorMessage(failure, 'Could not start the export'));
  };

  const turnsAddress = `/turns${filterSearch(turnFilters)}`;
  return (
    <form className="panel-form export-form" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${id}-title`}>New export</h2>
      <div className="form-row">
        <fieldset className="choice-fields">
          <legend>Dataset</legend>
          {KINDS.map((k) => (
            <label key={k.value}>
              <input
                type="radio"
                name={`${id}-kind`}
                value={k.value}
                checked={kind === k.value}
                onChange={() => setKind(k.value)}
              />
              {k.label}
            </label>
          ))}
        </fieldset>
        <fieldset className="choice-fields">
          <legend>Format</legend>
          {FORMATS.map((f) => (
            <label key={f.value}>
              <input
                type="radio"
                name={`${id}-format`}
                value={f.value}
                checked={format === f.value}
                onChange={() => setFormat(f.value)}
              />
              {f.label}
            </label>
          ))}
        </fieldset>
      </div>
      {described ? (
        <label className="check-field">
          <input type="checkbox" checked={useFilters} onChange={(e) => setUseFilters(e.target.checked)} />
          Only the turns matching the current turn filters: {described}
        </label>
      ) : (
        <p className="muted">
          Every labelled turn of users who agreed to training use. To export fewer, filter them on the{' '}
          <AppLink to={turnsAddress}>Turns page</AppLink> and choose “Export these turns”.
        </p>
      )}
      <p className="muted">Users are pseudonymous and messages PII-redacted in every export.</p>
      <ErrorNote error={error} />
      <div className="button-row">
        <button type="submit" disabled={busy}>
          Start export
        </button>
      </div>
    </form>
  );
}
