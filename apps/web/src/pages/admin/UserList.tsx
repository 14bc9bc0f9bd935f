import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, errorMessage, type Reply } from '../../api/client';
import { type Role, ROLES } from './admin-common';
import { AppLink } from '../../ui/AppLink';
import { StatusBadge } from '../../ui/StatusBadge';
import { ErrorNote } from '../../ui/ErrorNote';
import { when } from '../../ui/format';
import { DataTable } from '../../ui/DataTable';

export type User = Reply<'get', '/v1/users'>['items'][number];

const PAGE_SIZE = 25;

interface Filters {
  email: string;
  role: Role | '';
  status: '' | 'active' | 'disabled';
}

const NO_FILTERS: Filters = { email: '', role: '', status: '' };

/** Every account, oldest first, a page at a time, filtered by part of the email, a role and the status. */
export function UserList() {
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [offset, setOffset] = useState(0);
  const [users, setUsers] = useState<User[] | null>(null);
  const [nextOffset, setNextOffset] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(async () => {
    setError(null);
    const { data, error: failure } = await api.GET('/v1/users', {
      params: {
        query: {
          limit: PAGE_SIZE,
          offset,
          ...(filters.email.trim() && { email: filters.email.trim() }),
          ...(filters.role && { role: filters.role }),
          ...(filters.status && { disabled: filters.status === 'disabled' ? 'true' : 'false' }),
        },
      },
    });
    if (data) {
      setUsers(data.items);
      setNextOffset(data.nextOffset);
    } else setError(errorMessage(failure, 'Could not load the users'));
  }, [filters, offset]);
  useEffect(() => void load(), [load]);

  const search = (event: FormEvent) => {
    event.preventDefault();
    setOffset(0);
    setFilters(draft);
  };

  const first = offset + 1;
  const last = offset + (users?.length ?? 0);

  return (
    <section className="page admin-page">
      <h1>Users</h1>
      <form className="admin-filters" role="search" aria-label="Users" onSubmit={search}>
        <label>
          Email contains
          <input
            type="search"
            value={draft.email}
            maxLength={254}
            onChange={(e) => setDraft({ ...draft, email: e.target.value })}
          />
        </label>
        <label>
          Role
          <select
            value={draft.role}
            onChange={(e) => setDraft({ ...draft, role: e.target.value as Filters['role'] })}
          >
            <option value="">Any role</option>
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select
            value={draft.status}
            onChange={(e) => setDraft({ ...draft, status: e.target.value as Filters['status'] })}
          >
            <option value="">Any status</option>
            <option value="active">Active</option>
            <option value="disabled">Disabled</option>
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={error} />
      {users === null ? (
        !error && <p className="muted">Loading…</p>
      ) : users.length === 0 ? (
        <p className="muted">No users match.</p>
      ) : (
        <DataTable
          label={'Users'}
          caption={`Users ${first} to ${last}, oldest first`}
          className="admin-table"
          columns={['Email', 'Display name', 'Roles', 'Status', 'Created']}
        >
          {users.map((user) => (
            <tr key={user.id}>
              <td>
                <AppLink to={`/users/${user.id}`}>{user.email}</AppLink>
              </td>
              <td>
                {user.displayName}
                {user.simulated && (
                  <>
                    {' '}
                    <StatusBadge status="simulated" />
                  </>
                )}
              </td>
              <td>{user.roles.join(', ')}</td>
              <td>
                <span className={user.disabled ? 'status status-disabled' : 'status'}>
                  {user.disabled ? 'disabled' : 'active'}
                </span>
              </td>
              <td>{when(user.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <nav className="pager" aria-label="Pages of users">
        <button
          type="button"
          className="secondary"
          disabled={offset === 0}
          onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
        >
          Previous page
        </button>
        {users && users.length > 0 && (
          <span className="muted">
            {first}–{last}
          </span>
        )}
        <button
          type="button"
          className="secondary"
          disabled={nextOffset === null}
          onClick={() => nextOffset !== null && setOffset(nextOffset)}
        >
          Next page
        </button>
      </nav>
    </section>
  );
}
