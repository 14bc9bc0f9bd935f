import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client';
import type { StaffPageProps } from '../../staff-page-props';
import './admin.css';
import { ApiKeyTable } from './ApiKeyTable';
import type { ApiKey, ApiKeyWithSecret } from './api-keys';
import { CreateApiKey } from './CreateApiKey';
import { SecretReveal } from './SecretReveal';
import { ErrorNote } from '../../ui/ErrorNote';

/** Service credentials for admins: the keys, a new one, rotating and revoking; a secret is shown only once. */
export function ApiKeysPage(_props: StaffPageProps) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [myRoles, setMyRoles] = useState<string[]>([]);
  const [revealed, setRevealed] = useState<{ key: ApiKeyWithSecret; rotated: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/api-keys');
    if (failure) setError(errorMessage(failure, 'Could not load the API keys'));
    else setKeys(data.items);
  }, []);
  useEffect(() => {
    void load();
    void api.GET('/v1/me').then(({ data }) => setMyRoles(data?.roles ?? []));
  }, [load]);

  /** Runs a change and reloads the list: the answer's body on success, null (with the error shown) on failure. */
  const act = async <T,>(
    run: () => Promise<{ error?: unknown; data?: T }>,
    fallback: string,
  ): Promise<{ data: T | undefined } | null> => {
    setBusy(true);
    setError(null);
    setStatus('');
    const { data, error: failure } = await run();
    setBusy(false);
    if (failure) {
      setError(errorMessage(failure, fallback));
      return null;
    }
    await load();
    return { data };
  };

  const rotate = async (key: ApiKey) => {
    const rotated = await act(
      () => api.POST('/v1/api-keys/{id}/rotate', { params: { path: { id: key.id } }, body: {} }),
      'Could not rotate the key',
    );
    if (rotated?.data) setRevealed({ key: rotated.data, rotated: true });
  };

  const revoke = async (key: ApiKey) => {
    const done = await act(
      () => api.DELETE('/v1/api-keys/{id}', { params: { path: { id: key.id } } }),
      'Could not revoke the key',
    );
    if (done !== null) {
      if (revealed?.key.id === key.id) setRevealed(null);
      setStatus(`Revoked ${key.name}.`);
    }
  };

  return (
    <section className="page admin-page">
      <h1>API keys</h1>
      <p className="muted">
        Keys let services call the API with their own roles, never admin. Rotating gives a key a new secret
        (the old one works for a short grace period); revoking stops it at once.
      </p>
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>
      {revealed && (
        <SecretReveal apiKey={revealed.key} rotated={revealed.rotated} onDone={() => setRevealed(null)} />
      )}
      {keys === null ? (
        !error && <p className="muted">Loading…</p>
      ) : keys.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <ApiKeyTable keys={keys} busy={busy} onRotate={rotate} onRevoke={revoke} />
      )}
      <CreateApiKey
        myRoles={myRoles}
        onCreated={(key) => {
          setStatus('');
          setRevealed({ key, rotated: false });
          void load();
        }}
      />
    </section>
  );
}
