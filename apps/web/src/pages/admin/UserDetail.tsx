import { useCallback, useEffect, useId, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import { AuditTrail } from './AuditTrail';
import { RolesEditor } from './RolesEditor';
import type { User } from './UserList';
import { AppLink } from '../../ui/AppLink';
import { ConfirmAction } from '../../ui/ConfirmAction';
import { StatusBadge } from '../../ui/StatusBadge';
import { ErrorNote } from '../../ui/ErrorNote';
import { when } from '../../ui/format';

type Patch = { roles?: User['roles']; disabled?: boolean };

/** One account: its roles, enabling or disabling it, and its audit trail. */
export function UserDetail({ id: userId }: { id: string }) {
  const id = useId();
  const [user, setUser] = useState<User | null>(null);
  const [myId, setMyId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  // Bumped after each change, so the audit trail shows it.
  const [version, setVersion] = useState(0);

  useEffect(() => {
    setUser(null);
    void api.GET('/v1/users/{id}', { params: { path: { id: userId } } }).then(({ data, error: failure }) => {
      if (data) setUser(data);
      else setError(errorMessage(failure, 'Could not load this user'));
    });
    void api.GET('/v1/me').then(({ data }) => setMyId(data?.id ?? null));
  }, [userId]);

  const update = useCallback(
    async (patch: Patch, done: string): Promise<boolean> => {
      setBusy(true);
      setError(null);
      setStatus('');
      const { data, error: failure } = await api.PATCH('/v1/users/{id}', {
        params: { path: { id: userId } },
        body: patch,
      });
      setBusy(false);
      if (!data) {
        setError(errorMessage(failure, 'Could not save the change'));
        return false;
      }
      setUser(data);
      setStatus(done);
      setVersion((v) => v + 1);
      return true;
    },
    [userId],
  );

  const self = user !== null && user.id === myId;

  const saveRoles = async (roles: User['roles']) => {
    const demotedSelf = self && !roles.includes('admin');
    const saved = await update({ roles }, `Roles saved: ${roles.join(', ')}.`);
    // Without admin the staff pages in this tab are out of date: start again from the characters.
    if (saved && demotedSelf) window.location.assign('/');
  };

  return (
    <section className="page admin-page">
      <p>
        <AppLink to="/users">← All users</AppLink>
      </p>
      <h1>{user ? user.displayName : 'User'}</h1>
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {user === null ? (
        !error && <p className="muted">Loading…</p>
      ) : (
        <>
          <dl className="admin-facts">
            <dt>Email</dt>
            <dd>
              {user.email}
              {user.simulated && (
                <>
                  {' '}
                  <StatusBadge status="simulated" />
                </>
              )}
            </dd>
            <dt>Status</dt>
            <dd>
              <span className={user.disabled ? 'status status-disabled' : 'status'}>
                {user.disabled ? `disabled since ${when(user.disabledAt)}` : 'active'}
              </span>
            </dd>
            <dt>Created</dt>
            <dd>{when(user.createdAt)}</dd>
          </dl>

          <RolesEditor
            key={user.roles.join()}
            roles={user.roles}
            self={self}
            busy={busy}
            onSave={(roles) => void saveRoles(roles)}
          />

          <section aria-labelledby={`${id}-account`}>
            <h2 id={`${id}-account`}>Account</h2>
            {user.disabled ? (
              <>
                <p>This account is disabled: it cannot sign in, and its tokens no longer work.</p>
                <button
                  type="button"
                  disabled={busy}
                  onClick={() => void update({ disabled: false }, 'Account enabled.')}
                >
                  Enable account
                </button>
              </>
            ) : self ? (
              <p className="muted">You cannot disable your own account.</p>
            ) : (
              <>
                <p>
                  Disabling signs the user out everywhere at once; you can enable the account again later.
                </p>
                <ConfirmAction
                  label="Disable account…"
                  question={`Disable ${user.email}?`}
                  confirmLabel="Yes, disable"
                  disabled={busy}
                  onConfirm={() => update({ disabled: true }, 'Account disabled.')}
                />
              </>
            )}
          </section>

          <AuditTrail userId={user.id} version={version} />
        </>
      )}
    </section>
  );
}
