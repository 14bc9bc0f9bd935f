import { AppLink, num, scalarEntries, StatusBadge } from './ui';
import { gateOf, lossCurve, type RlJob, splitsOf } from './rl-job';
import { LossChart } from './LossChart';

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
          <div className="table-scroll" role="region" aria-label="Gate checks" tabIndex={0}>
            <table className="data-table">
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Candidate</th>
                  <th scope="col">Default</th>
                  <th scope="col">Δ</th>
                </tr>
              </thead>
              <tbody>
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
                    <td>{num(gate.sentient.candidate)}</td>
                    <td>{num(gate.sentient.default)}</td>
                    <td>{num(gate.sentient.delta)}</td>
                  </tr>
                )}
                {gate.heldout && (
                  <tr>
                    <th scope="row">Held-out reward ({gate.heldout.items} items)</th>
                    <td>{num(gate.heldout.candidate)}</td>
                    <td>{num(gate.heldout.default)}</td>
                    <td>{num(gate.heldout.delta)}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
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
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">{head[0]}</th>
            <th scope="col">{head[1]}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([key, value]) => (
            <tr key={key}>
              <th scope="row">{key}</th>
              <td>{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
