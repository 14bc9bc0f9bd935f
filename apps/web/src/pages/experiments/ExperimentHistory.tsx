import { useEffect, useState } from 'react';
import { api, errorMessage, type Reply } from '../../api/client';
import { ErrorNote } from '../../ui/ErrorNote';
import { when } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

type Entry = Reply<'get', '/v1/experiments/{id}/audit'>['items'][number];

/** Why it happened: the stop reason, the decision's reason, or the recommendation's. */
function why(entry: Entry): string {
  const { details } = entry;
  const text = details['stopReason'] ?? details['reason'];
  if (entry.action === 'recommended')
    return `would ${String(details['verdict'])} ${String(details['armId'])}: ${String(text)}`;
  return typeof text === 'string' ? text : '';
}

/** Who changed the experiment and why, oldest first: people, guardrails and the primary metric's decisions. */
export function ExperimentHistory({ id, version }: { id: string; version: unknown }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    void api
      .GET('/v1/experiments/{id}/audit', { params: { path: { id } } })
      .then(({ data, error: failure }) => {
        if (!current) return;
        if (data) setEntries(data.items);
        else setError(errorMessage(failure, 'Could not load the history'));
      });
    return () => {
      current = false;
    };
  }, [id, version]);

  return (
    <>
      <h2>History</h2>
      <ErrorNote error={error} />
      {entries && (
        <DataTable label="History" columns={['When', 'What', 'By', 'Why']}>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{when(entry.at)}</td>
              <th scope="row">{entry.action}</th>
              <td>{entry.actorId ? 'a person' : 'the experiment itself'}</td>
              <td>{why(entry)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
