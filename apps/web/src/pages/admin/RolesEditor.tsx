import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { type Role, ROLE_HINTS, ROLES } from './admin-common';
import { ErrorNote } from '../../ui/ErrorNote';

/** The account's roles as checkboxes; removing your own admin role asks first. */
export function RolesEditor({
  roles,
  self,
  busy,
  onSave,
}: {
  roles: readonly Role[];
  self: boolean;
  busy: boolean;
  onSave: (roles: Role[]) => void;
}) {
  const id = useId();
  const [chosen, setChosen] = useState<Role[]>([...roles]);
  const [confirming, setConfirming] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) yes.current?.focus();
  }, [confirming]);

  const ordered = ROLES.filter((role) => chosen.includes(role));
  const changed = ordered.join() !== ROLES.filter((role) => roles.includes(role)).join();
  const demotesSelf = self && roles.includes('admin') && !chosen.includes('admin');

  const toggle = (role: Role, on: boolean) => {
    setConfirming(false);
    setNote(null);
    setChosen((current) => (on ? [...current, role] : current.filter((r) => r !== role)));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (ordered.length === 0) {
      setNote('Choose at least one role.');
      return;
    }
    if (demotesSelf && !confirming) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    onSave(ordered);
  };

  return (
    <form className="roles-editor" aria-labelledby={`${id}-title`} onSubmit={submit}>
      <h2 id={`${id}-title`}>Roles</h2>
      <fieldset>
        <legend className="visually-hidden">Roles</legend>
        {ROLES.map((role) => (
          <label key={role} className="toggle">
            <input
              type="checkbox"
              checked={chosen.includes(role)}
              onChange={(event) => toggle(role, event.target.checked)}
            />
            <span>
              {role} <span className="muted">({ROLE_HINTS[role]})</span>
            </span>
          </label>
        ))}
      </fieldset>
      <ErrorNote error={note} />
      {confirming ? (
        <div className="confirm-action" role="group" aria-label="Remove your own admin role?">
          <span>
            You are removing your own admin role: you lose access to users and API keys at once, and only
            another admin can give it back.
          </span>
          <button ref={yes} type="submit" className="danger" disabled={busy}>
            Yes, remove my admin role
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="submit" disabled={busy || !changed}>
          Save roles
        </button>
      )}
    </form>
  );
}
