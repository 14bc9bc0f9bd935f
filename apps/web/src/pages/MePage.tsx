import { useCallback, useEffect, useId, useState } from 'react';
import { api, errorMessage, type Reply } from '../api/client';
import { saveTokens } from '../api/session';
import { navigate } from '../router';
import { ErrorNote } from '../ui/ErrorNote';
import { Toggle } from '../ui/Toggle';
import { PersonalKeys } from './me/PersonalKeys';

type Me = Reply<'get', '/v1/me'>;

type ProfileView = Reply<'get', '/v1/me/profile'>;

interface Profile {
  inferenceEnabled: boolean;
  fields: (ProfileView['fields'][string] & { name: string })[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields with a value, named. */
const toProfile = (view: ProfileView): Profile => ({
  inferenceEnabled: view.inferenceEnabled,
  fields: Object.entries(view.fields)
    .filter(([, field]) => field.value !== undefined && field.value !== null)
    .map(([name, field]) => ({ ...field, name })),
});

/** "hiddenNeed" → "Hidden need". */
function label(name: string): string {
  const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function show(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(show).join(', ');
  if (isRecord(value)) {
    return Object.entries(value)
      .map(([k, v]) => `${label(k)}: ${show(v)}`)
      .join('; ');
  }
  return '';
}

/**
 * The signed-in user's own page: training consent, what the companion inferred, keys for their own chat apps,
 * erasing the account.
 */
export function MePage() {
  const id = useId();
  const [me, setMe] = useState<Me | null>(null);
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);

  const loadProfile = useCallback(async () => {
    const { data, error: failure } = await api.GET('/v1/me/profile');
    if (data) setProfile(toProfile(data));
    else setError(errorMessage(failure, 'Could not load what the companion thinks of you'));
  }, []);

  useEffect(() => {
    void api.GET('/v1/me').then(({ data, error: failure }) => {
      if (data) setMe(data);
      else setError(errorMessage(failure, 'Could not load your account'));
    });
    void loadProfile();
  }, [loadProfile]);

  const setConsent = async (trainingConsent: boolean) => {
    setError(null);
    const { data, error: failure } = await api.PATCH('/v1/me', { body: { trainingConsent } });
    if (data) {
      setMe(data);
      setStatus(
        trainingConsent ? 'Your conversations may help train models.' : 'Training consent withdrawn.',
      );
    } else setError(errorMessage(failure, 'Could not save your choice'));
  };

  const setInference = async (inferenceEnabled: boolean) => {
    setError(null);
    const { error: failure } = await api.PATCH('/v1/me/profile', { body: { inferenceEnabled } });
    if (failure) {
      setError(errorMessage(failure, 'Could not save your choice'));
      return;
    }
    setStatus(
      inferenceEnabled
        ? 'The companion may learn how you talk again.'
        : 'Inference is off: the companion infers nothing more about you.',
    );
    await loadProfile();
  };

  const resetProfile = async () => {
    if (!window.confirm('Forget everything the companion has inferred about you?')) return;
    setError(null);
    const { error: failure } = await api.DELETE('/v1/me/profile');
    if (failure) setError(errorMessage(failure, 'Could not reset it'));
    else {
      setStatus('The companion has forgotten what it inferred about you.');
      await loadProfile();
    }
  };

  const eraseAccount = async () => {
    setBusy(true);
    setError(null);
    const { error: failure, response } = await api.DELETE('/v1/me');
    setBusy(false);
    if (failure || !response.ok) {
      setError(errorMessage(failure, 'Could not delete your account'));
      return;
    }
    saveTokens(null);
    navigate('/sign-in');
  };

  return (
    <section className="page me">
      <h1>Me</h1>
      {me && (
        <p>
          Signed in as <strong>{me.displayName}</strong> ({me.email})
        </p>
      )}
      <ErrorNote error={error} />
      <p role="status" className="muted">
        {status}
      </p>

      <section aria-labelledby={`${id}-training`}>
        <h2 id={`${id}-training`}>Training</h2>
        <Toggle
          label="Let my conversations help train better companions"
          hint="Only conversations of people who agree are exported for training, always pseudonymised and with personal details removed. You can change your mind at any time."
          checked={me?.trainingConsent ?? null}
          onChange={(checked) => void setConsent(checked)}
        />
      </section>

      <section aria-labelledby={`${id}-profile`}>
        <h2 id={`${id}-profile`}>What the companion thinks of me</h2>
        <Toggle
          label="Let the companion learn how I talk"
          hint="It infers your mood, style and needs from your messages to answer you better. Turned off, it infers nothing new; reset it to forget what it already knows."
          checked={profile?.inferenceEnabled ?? null}
          onChange={(checked) => void setInference(checked)}
        />
        {profile === null ? (
          <p className="muted">Loading…</p>
        ) : !profile.inferenceEnabled ? (
          <p className="muted">You turned inference off: nothing is inferred about you.</p>
        ) : profile.fields.length === 0 ? (
          <p className="muted">Nothing yet. The companion learns how you talk as you chat.</p>
        ) : (
          <ul className="profile-fields">
            {profile.fields.map((field) => (
              <li key={field.name}>
                <span className="profile-field-name">{label(field.name)}</span>: {show(field.value)}{' '}
                <span className="muted">({Math.round(field.confidence * 100)}% sure)</span>
                {field.evidence.length > 0 && (
                  <ul className="evidence" aria-label={`Why: ${label(field.name)}`}>
                    {field.evidence.map((e) => (
                      <li key={e.messageId}>
                        {e.text === null ? <em>a deleted message</em> : <q>{e.text}</q>}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        )}
        <button type="button" className="secondary" onClick={() => void resetProfile()}>
          Reset what it thinks of me
        </button>
      </section>

      <PersonalKeys />

      <section aria-labelledby={`${id}-delete`}>
        <h2 id={`${id}-delete`}>Delete my account</h2>
        <p>
          This erases your account with its conversations, messages, ratings and everything inferred about
          you. It cannot be undone.
        </p>
        {confirming ? (
          <div className="button-row" role="group" aria-label="Confirm deleting your account">
            <button type="button" className="danger" disabled={busy} onClick={() => void eraseAccount()}>
              Yes, delete my account forever
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        ) : (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Delete my account…
          </button>
        )}
      </section>
    </section>
  );
}
