import { useEffect, useId, useState } from 'react';
import { api, errorMessage, type Reply } from '../../api/client';
import { AppLink } from '../../ui/AppLink';
import { ErrorNote } from '../../ui/ErrorNote';
import { when } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

type Entry = Reply<'get', '/v1/users/{id}/audit'>['items'][number];
type State = NonNullable<Entry['before']>;

const show = (value: State[keyof State]): string =>
  value === undefined
    ? '–'
    : Array.isArray(value)
      ? value.join(', ')
      : typeof value === 'boolean'
        ? value
          ? 'yes'
          : 'no'
        : value;

/** "roles: user → user, analyst; disabled: no → yes", or what the account was created with. */
function describe(entry: Entry): string {
  const fields = Object.keys(entry.after) as (keyof State)[];
  if (entry.action === 'created' || entry.before === null) {
    return `created: ${fields.map((f) => `${f} ${show(entry.after[f])}`).join('; ')}`;
  }
  const before = entry.before;
  return fields.map((f) => `${f}: ${show(before[f])} → ${show(entry.after[f])}`).join('; ');
}

function Actor({ entry, emails }: { entry: Entry; emails: Record<string, string> }) {
  if (entry.actor === 'cli') return <>command line</>;
  if (entry.actor === 'bootstrap') return <>bootstrap admin</>;
  if (!entry.actorId) return <>–</>;
  return <AppLink to={`/users/${entry.actorId}`}>{emails[entry.actorId] ?? 'an admin'}</AppLink>;
}

/** Who changed the account, when, and what (oldest first). */
export function AuditTrail({ userId, version }: { userId: string; version: number }) {
  const id = useId();
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [emails, setEmails] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    void api
      .GET('/v1/users/{id}/audit', { params: { path: { id: userId } } })
      .then(async ({ data, error: failure }) => {
        if (!current) return;
        if (!data) {
          setError(errorMessage(failure, 'Could not load the audit trail'));
          return;
        }
        setEntries(data.items);
        // The admins who acted, by email (a deleted one stays "an admin").
        const actors = [...new Set(data.items.flatMap((e) => (e.actorId ? [e.actorId] : [])))];
        const found = await Promise.all(
          actors.map((actorId) => api.GET('/v1/users/{id}', { params: { path: { id: actorId } } })),
        );
        if (!current) return;
        setEmails(Object.fromEntries(found.flatMap(({ data: u }) => (u ? [[u.id, u.email]] : []))));
      });
    return () => {
      current = false;
    };
  }, [userId, version]);

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Audit trail</h2>
      <ErrorNote error={error} />
      {entries === null ? (
        !error && <p className="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p className="muted">No changes recorded.</p>
      ) : (
        <DataTable label={'Audit trail'} className="admin-table" columns={['When', 'By', 'Change']}>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{when(entry.at)}</td>
              <td>
                <Actor entry={entry} emails={emails} />
              </td>
              <td>{describe(entry)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
