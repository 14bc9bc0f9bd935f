import {
  lineageOf,
  lossCurve,
  populationOf,
  type RlJob,
  selectionOf,
  splitsOf,
  VALIDATION_MEASURES,
  validationMeasuresOf,
  validationOf,
} from './rl-job';
import { LossChart } from './LossChart';
import { scalarEntries } from './rl-job';
import { AppLink } from '../../ui/AppLink';
import { StatusBadge } from '../../ui/StatusBadge';
import { fmt } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

const CHECK_LABELS: Record<string, string> = {
  sentient: 'Sentient benchmark (emotion, 0-100)',
  heldout_reward: 'Held-out reward',
  repeated_sentences: 'Repeated sentences (share)',
  repeated_ngrams: 'Repeated 4-grams (share)',
  empty_or_refusal: 'Empty or refusing answers (share)',
  length_ratio: 'Length (words; Δ and interval as a ratio)',
  kl_to_parent: 'Drift from the parent (KL, nats per token; bound, no interval)',
};

const STOPPED_BY: Record<string, string> = {
  patience: 'no better validation step for a while',
  kl_budget: 'it drifted past the KL budget',
};

/** What the job produced so far: its dataset, training metrics and the gate's verdict. */
export function JobResults({ job }: { job: RlJob }) {
  const splits = splitsOf(job);
  const metrics = scalarEntries(job.metrics);
  const last = scalarEntries(job.metrics?.['last'] as Record<string, unknown> | null | undefined);
  const curve = lossCurve(job);
  const validation = validationOf(job);
  const measures = validationMeasuresOf(validation);
  const selection = selectionOf(job);
  const lineage = lineageOf(job);
  const population = populationOf(job);
  const { gate } = job;
  return (
    <>
      {lineage && (
        <>
          <h2>Lineage</h2>
          <KeyValues
            label="Lineage"
            head={['Field', 'Value']}
            rows={[
              [
                'Parent',
                `${lineage.parentCheckpointId}${lineage.parentAdapter ? ' (its adapter, trained further)' : ' (the base: a fresh adapter)'}`,
              ],
              ...(lineage.parentJobId ? [['Parent job', lineage.parentJobId] as [string, string]] : []),
              [
                'Data',
                lineage.since
                  ? `since ${lineage.since}, up to ${lineage.cutoff ?? '?'}`
                  : `all, up to ${lineage.cutoff ?? '?'}`,
              ],
              ['Replayed from before', `${lineage.replayed} of ${lineage.replayRead}`],
              ['Base weights (sha256)', lineage.baseSha256 ?? '—'],
              ['Served from', lineage.servedRoots.join(', ') || '—'],
            ]}
          />
        </>
      )}

      <h2>Dataset</h2>
      {splits.length > 0 ? (
        <KeyValues
          label="Dataset"
          head={['Split', 'Rows']}
          rows={[
            ...splits.map((s): [string, string] => [s.split, String(s.rows)]),
            ...scalarEntries(job.dataset).filter(([key]) => ['id', 'kind'].includes(key)),
            ...(population
              ? [
                  [
                    'Users',
                    population === 'simulated' ? "simulated (the RL loop's), never people" : 'people',
                  ] as [string, string],
                ]
              : []),
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
      {selection && (
        <p>
          {selection.generalised
            ? `Kept step ${selection.step ?? '?'}: ${selection.reason}.`
            : `Nothing kept: ${selection.reason}.`}
          {selection.stoppedBy &&
            ` Stopped early: ${STOPPED_BY[selection.stoppedBy] ?? selection.stoppedBy}.`}
          {selection.maxKl !== null && ` KL budget ${fmt(selection.maxKl)} nats per token.`}
        </p>
      )}
      {validation.length > 0 && (
        <DataTable
          label="Validation"
          columns={['Step', ...measures.map((key) => VALIDATION_MEASURES[key]), 'KL to parent']}
        >
          {validation.map((point) => (
            <tr key={point.step} aria-current={point.step === selection?.step ? 'true' : undefined}>
              <th scope="row">
                {point.step}
                {point.step === selection?.step && selection.generalised ? ' (kept)' : ''}
              </th>
              {measures.map((key) => (
                <td key={key}>{fmt(point.measures[key] ?? null)}</td>
              ))}
              <td>{fmt(point.klToParent)}</td>
            </tr>
          ))}
        </DataTable>
      )}

      <h2>Gate</h2>
      {!gate ? (
        <p className="muted">Not gated yet.</p>
      ) : (
        <>
          <p>
            Result: <StatusBadge status={gate.passed ? 'passed' : 'failed'} />
            {gate.better && ' (significantly better than the default)'}
          </p>
          {gate.reasons.length > 0 && (
            <ul className="rl-reasons" aria-label="Why it failed">
              {gate.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
          {gate.notes.length > 0 && (
            <ul className="muted" aria-label="Checks turned off">
              {gate.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          <DataTable
            label="Gate checks"
            columns={[
              'Check',
              'Items',
              'Candidate',
              'Default',
              'Δ',
              `${fmt(gate.level * 100)}% interval`,
              'Result',
            ]}
          >
            {gate.checks.map((check) => (
              <tr key={check.name}>
                <th scope="row">
                  {CHECK_LABELS[check.name] ?? check.name}
                  {check.name === 'sentient' && gate.evaluations && (
                    <>
                      {' '}
                      <AppLink
                        to={`/evaluations?a=${gate.evaluations.default}&b=${gate.evaluations.candidate}`}
                      >
                        compare
                      </AppLink>
                    </>
                  )}
                </th>
                <td>{check.items}</td>
                <td>{fmt(check.candidate)}</td>
                <td>{fmt(check.default)}</td>
                <td>{fmt(check.delta)}</td>
                <td>{check.interval ? `[${fmt(check.interval[0])}, ${fmt(check.interval[1])}]` : '—'}</td>
                <td>
                  <StatusBadge status={check.status} label={check.status.replace('_', ' ')} />
                </td>
              </tr>
            ))}
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
