import { useId, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../../api/client';
import { type ApiKeyWithSecret, KEY_ROLES, type Service, SERVICES } from './api-keys';
import { type Role, ROLE_HINTS } from './admin-common';
import { ErrorNote } from '../../ui/ErrorNote';

const DAY_MS = 86_400_000;
/** The gateway's default and longest lifetimes (API_KEY_DEFAULT_TTL_DAYS, API_KEY_MAX_TTL_DAYS). */
const DEFAULT_DAYS = 90;
const MAX_DAYS = 365;

/** A local calendar date as an `<input type="date">` value. */
const isoDay = (date: Date) =>
  `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, '0')}-${String(date.getDate()).padStart(2, '0')}`;

const toggled = <T,>(list: T[], item: T, on: boolean): T[] =>
  on ? [...list, item] : list.filter((x) => x !== item);

/** A new key: its name, the services it may call, its roles (only ones the admin holds) and its expiry. */
export function CreateApiKey({
  myRoles,
  onCreated,
}: {
  myRoles: readonly string[];
  onCreated: (key: ApiKeyWithSecret) => void;
}) {
  const id = useId();
  const [name, setName] = useState('');
  const [services, setServices] = useState<Service[]>(['chat-gateway']);
  const [roles, setRoles] = useState<Role[]>([]);
  const [expires, setExpires] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const today = new Date();
  const minDay = isoDay(new Date(today.getTime() + DAY_MS));
  const maxDay = isoDay(new Date(today.getTime() + MAX_DAYS * DAY_MS));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (services.length === 0) return setError('Choose at least one service.');
    if (roles.length === 0) return setError('Choose at least one role.');
    setError(null);
    setBusy(true);
    const { data, error: failure } = await api.POST('/v1/api-keys', {
      body: {
        name: name.trim(),
        services: SERVICES.filter((s) => services.includes(s)),
        roles: KEY_ROLES.filter((r) => roles.includes(r)),
        // The start of the chosen day, local time: always within the longest lifetime.
        ...(expires && { expiresAt: new Date(`${expires}T00:00:00`).toISOString() }),
      },
    });
    setBusy(false);
    if (failure) {
      setError(errorMessage(failure, 'Could not create the key'));
      return;
    }
    setName('');
    setRoles([]);
    setExpires('');
    onCreated(data);
  };

  return (
    <form className="admin-form" aria-labelledby={`${id}-title`} onSubmit={(e) => void submit(e)}>
      <h2 id={`${id}-title`}>New API key</h2>
      <label>
        Name
        <input value={name} required maxLength={100} onChange={(e) => setName(e.target.value)} />
      </label>
      <fieldset>
        <legend>Services it may call</legend>
        {SERVICES.map((service) => (
          <label key={service} className="toggle">
            <input
              type="checkbox"
              checked={services.includes(service)}
              onChange={(e) => setServices(toggled(services, service, e.target.checked))}
            />
            <span>{service}</span>
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Roles</legend>
        {KEY_ROLES.map((role) => {
          const held = myRoles.includes(role);
          return (
            <label key={role} className="toggle">
              <input
                type="checkbox"
                checked={roles.includes(role)}
                disabled={!held}
                onChange={(e) => setRoles(toggled(roles, role, e.target.checked))}
              />
              <span>
                {role}{' '}
                <span className="muted">({held ? ROLE_HINTS[role] : 'you do not hold this role'})</span>
              </span>
            </label>
          );
        })}
        <p className="muted">A key never holds admin, and only roles you hold yourself.</p>
      </fieldset>
      <label>
        Expires on (optional)
        <input
          type="date"
          min={minDay}
          max={maxDay}
          value={expires}
          aria-describedby={`${id}-expiry`}
          onChange={(e) => setExpires(e.target.value)}
        />
      </label>
      <p id={`${id}-expiry`} className="muted">
        Without a date, in {DEFAULT_DAYS} days; at most {MAX_DAYS} days from now.
      </p>
      <ErrorNote error={error} />
      <div>
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </div>
    </form>
  );
}
