import { gateOf, lossCurve, type RlJob, splitsOf } from './rl-job';
import { LossChart } from './LossChart';
import { scalarEntries } from './rl-job';
import { AppLink } from '../../ui/AppLink';
import { StatusBadge } from '../../ui/StatusBadge';
import { fmt } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

/** What the job produced so far: its dataset, training metrics and the gate's verdict. */
export function JobResults({ job }: { job: RlJob }) {
  const splits = splitsOf(job);
  const metrics = scalarEntries(job.metrics);
  const last = scalarEntries(job.metrics?.['last'] as Record<string, unknown> | null | undefined);
  const curve = lossCurve(job);
  const gate = gateOf(job);
  return (
    <>
      <h2>Dataset</h2>
      {splits.length > 0 ? (
        <KeyValues
          label="Dataset"
          head={['Split', 'Rows']}
          rows={[
            ...splits.map((s): [string, string] => [s.split, String(s.rows)]),
            ...scalarEntries(job.dataset).filter(([key]) => ['id', 'kind'].includes(key)),
          ]}
        />
      ) : job.dataset ? (
        <KeyValues label="Dataset" head={['Field', 'Value']} rows={scalarEntries(job.dataset)} />
      ) : (
        <p className="muted">No snapshot yet.</p>
      )}

      <h2>Training metrics</h2>
      {metrics.length + last.length === 0 && curve.length === 0 ? (
        <p className="muted">No metrics yet.</p>
      ) : (
        <div className="rl-metrics">
          <KeyValues label="Training metrics" head={['Metric', 'Value']} rows={[...metrics, ...last]} />
          {curve.length > 1 && <LossChart points={curve} />}
        </div>
      )}

      <h2>Gate</h2>
      {!gate ? (
        <p className="muted">Not gated yet.</p>
      ) : (
        <>
          <p>
            Result: <StatusBadge status={gate.passed ? 'passed' : 'failed'} />
          </p>
          {gate.reasons.length > 0 && (
            <ul className="rl-reasons" aria-label="Why it failed">
              {gate.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
          {gate.notes.length > 0 && (
            <ul className="muted" aria-label="Checks not run">
              {gate.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          <DataTable label="Gate checks" columns={['Check', 'Candidate', 'Default', 'Δ']}>
            {gate.sentient && (
              <tr>
                <th scope="row">
                  Sentient benchmark ({gate.sentient.profiles} profiles){' '}
                  <AppLink
                    to={`/evaluations?a=${gate.sentient.defaultEvaluationId}&b=${gate.sentient.candidateEvaluationId}`}
                  >
                    compare
                  </AppLink>
                </th>
                <td>{fmt(gate.sentient.candidate)}</td>
                <td>{fmt(gate.sentient.default)}</td>
                <td>{fmt(gate.sentient.delta)}</td>
              </tr>
            )}
            {gate.heldout && (
              <tr>
                <th scope="row">Held-out reward ({gate.heldout.items} items)</th>
                <td>{fmt(gate.heldout.candidate)}</td>
                <td>{fmt(gate.heldout.default)}</td>
                <td>{fmt(gate.heldout.delta)}</td>
              </tr>
            )}
          </DataTable>
        </>
      )}
    </>
  );
}

function KeyValues({
  label,
  head,
  rows,
}: {
  label: string;
  head: [string, string];
  rows: [string, string][];
}) {
  return (
    <DataTable label={label} columns={head}>
      {rows.map(([key, value]) => (
        <tr key={key}>
          <th scope="row">{key}</th>
          <td>{value}</td>
        </tr>
      ))}
    </DataTable>
  );
}
