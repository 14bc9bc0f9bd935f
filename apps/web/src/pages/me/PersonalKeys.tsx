import { useCallback, useEffect, useId, useState, type FormEvent } from 'react';
import { api, errorMessage } from '../../api/client';
import { ConfirmAction } from '../../ui/ConfirmAction';
import { DataTable } from '../../ui/DataTable';
import { ErrorNote } from '../../ui/ErrorNote';
import { StatusBadge } from '../../ui/StatusBadge';
import { fmtTime } from '../../ui/format';
import { NewKeySecret } from './NewKeySecret';
import type { PersonalKey, PersonalKeyWithSecret } from './personal-keys';
import './personal-keys.css';

/** The user's keys for OpenAI-compatible apps: how to set one up, a new key (its secret once), the keys, revoking. */
export function PersonalKeys() {
  const id = useId();
  const [keys, setKeys] = useState<PersonalKey[] | null>(null);
  const [revealed, setRevealed] = useState<PersonalKeyWithSecret | null>(null);
  const [name, setName] = useState('');
  const [personaGuidance, setPersonaGuidance] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const baseUrl = `${window.location.origin}/v1`;

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/me/api-keys');
    if (data) setKeys(data.items);
    else setError(errorMessage(failure, 'Could not load your keys'));
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setStatus('');
    const { data, error: failure } = await api.POST('/v1/me/api-keys', {
      body: { name: name.trim(), personaGuidance },
    });
    setBusy(false);
    if (!data) {
      setError(errorMessage(failure, 'Could not create the key'));
      return;
    }
    setName('');
    setPersonaGuidance(false);
    setRevealed(data);
    await load();
  };

  const revoke = async (key: PersonalKey) => {
    setBusy(true);
    setError(null);
    setStatus('');
    const { error: failure } = await api.DELETE('/v1/me/api-keys/{id}', { params: { path: { id: key.id } } });
    setBusy(false);
    if (failure) {
      setError(errorMessage(failure, 'Could not revoke the key'));
      return;
    }
    if (revealed?.id === key.id) setRevealed(null);
    setStatus(`Revoked ${key.name}: it no longer works.`);
    await load();
  };

  return (
    <section className="personal-keys" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Keys for your own chat apps</h2>
      <p>
        Chat with the characters from SillyTavern, Open WebUI, the OpenAI SDKs or any other app that speaks
        OpenAI&apos;s API. Its chats are conversations of yours like any other. In the app, set:
      </p>
      <dl className="key-setup">
        <dt>Base URL</dt>
        <dd>
          <code>{baseUrl}</code>
        </dd>
        <dt>API key</dt>
        <dd>a key you create here</dd>
        <dt>Model</dt>
        <dd>
          a character&apos;s name, or <code>default</code>
        </dd>
      </dl>

      <form className="key-form" aria-labelledby={`${id}-new`} onSubmit={(e) => void create(e)}>
        <h3 id={`${id}-new`}>New key</h3>
        <label>
          Name
          <input
            value={name}
            required
            maxLength={100}
            placeholder="e.g. SillyTavern on my laptop"
            aria-describedby={`${id}-name-hint`}
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        <p id={`${id}-name-hint`} className="muted">
          The app it is for: its conversations are marked with it.
        </p>
        <label className="toggle">
          <input
            type="checkbox"
            checked={personaGuidance}
            onChange={(e) => setPersonaGuidance(e.target.checked)}
          />
          <span>
            Adapt replies to my personality
            <br />
            <span className="muted">
              Off, replies follow only what the app sends; on, they also use what the companion inferred about
              you.
            </span>
          </span>
        </label>
        <div>
          <button type="submit" disabled={busy || name.trim() === ''}>
            Create key
          </button>
        </div>
      </form>

      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {revealed && <NewKeySecret apiKey={revealed} onDone={() => setRevealed(null)} />}

      <h3>Your keys</h3>
      {keys === null ? (
        !error && <p className="muted">Loading…</p>
      ) : keys.length === 0 ? (
        <p className="muted">No keys yet.</p>
      ) : (
        <DataTable
          label="Your keys"
          className="key-table"
          columns={['Name', 'Starts with', 'Status', 'Created', 'Last used', 'Adapts to me', 'Actions']}
        >
          {keys.map((key) => (
            <tr key={key.id} data-key-id={key.id}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>
                <StatusBadge status={key.status} />
                <div className="muted">
                  {key.status === 'revoked'
                    ? key.revokedAt
                      ? fmtTime(key.revokedAt, 'short')
                      : ''
                    : key.status === 'expired'
                      ? fmtTime(key.expiresAt, 'short')
                      : `until ${fmtTime(key.expiresAt, 'short')}`}
                </div>
              </td>
              <td>{fmtTime(key.createdAt, 'short')}</td>
              <td>{key.lastUsedAt ? fmtTime(key.lastUsedAt, 'short') : 'never'}</td>
              <td>{key.personaGuidance ? 'yes' : 'no'}</td>
              <td>
                {key.status === 'active' && (
                  <ConfirmAction
                    label="Revoke"
                    question={`Revoke ${key.name}? Apps using it stop working at once.`}
                    confirmLabel="Yes, revoke"
                    disabled={busy}
                    onConfirm={() => revoke(key)}
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
