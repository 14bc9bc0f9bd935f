import { useId, useState, type FormEvent } from 'react';
import { navigate } from '../../router';
import type { EvaluationSummary } from './evaluation';
import { shortId, when } from '../../ui/format';

const optionLabel = (e: EvaluationSummary) =>
  `${e.checkpointId} · ${e.status} · ${when(e.createdAt)} (${shortId(e.id)})`;

function EvaluationSelect({
  label,
  evaluations,
  value,
  onChange,
}: {
  label: string;
  evaluations: EvaluationSummary[];
  value: string;
  onChange: (id: string) => void;
}) {
  return (
    <label>
      {label}
      <select value={value} required onChange={(e) => onChange(e.target.value)}>
        {evaluations.map((e) => (
          <option key={e.id} value={e.id}>
            {optionLabel(e)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Two evaluations to compare: A (say, the default) and B (the candidate). */
export function CompareForm({
  evaluations,
  pair,
}: {
  evaluations: EvaluationSummary[];
  pair: { a: string; b: string } | null;
}) {
  const id = useId();
  const [a, setA] = useState(pair?.a ?? evaluations[1]?.id ?? evaluations[0]?.id ?? '');
  const [b, setB] = useState(pair?.b ?? evaluations[0]?.id ?? '');
  const same = a !== '' && a === b;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (a && b && !same) navigate(`/evaluations?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
  };

  return (
    <form className="compare-form" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h2 id={`${id}-title`}>Compare two evaluations</h2>
      <div className="form-row">
        <EvaluationSelect label="Evaluation A" evaluations={evaluations} value={a} onChange={setA} />
        <EvaluationSelect label="Evaluation B" evaluations={evaluations} value={b} onChange={setB} />
        <button type="submit" disabled={same || !a || !b}>
          Compare
        </button>
      </div>
      {same && <p className="muted">Choose two different evaluations.</p>}
    </form>
  );
}
