import { type FormEvent, useId, useState } from 'react';
import { errorMessage, publicApi } from '../api/client';
import { saveTokens } from '../api/session';
import { navigate } from '../router';
import { AppLink } from '../ui/AppLink';

/** Sign up and sign in: one form, the display name only when signing up. */
export function AuthPage({ mode }: { mode: 'sign-in' | 'sign-up' }) {
  const id = useId();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signingUp = mode === 'sign-up';

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get('email') ?? '');
    const password = String(form.get('password') ?? '');
    setBusy(true);
    setError(null);
    const result = signingUp
      ? await publicApi.POST('/v1/auth/register', {
          body: { email, password, displayName: String(form.get('displayName') ?? '') },
        })
      : await publicApi.POST('/v1/auth/login', { body: { email, password } });
    setBusy(false);
    if (!result.data) {
      setError(errorMessage(result.error, signingUp ? 'Could not sign up' : 'Could not sign in'));
      return;
    }
    saveTokens({ accessToken: result.data.accessToken, refreshToken: result.data.refreshToken });
    navigate('/');
  };

  return (
    <main id="main" className="auth">
      <h1>{signingUp ? 'Create your account' : 'Sign in to Echoloop'}</h1>
      <form onSubmit={(event) => void submit(event)} aria-describedby={error ? `${id}-error` : undefined}>
        {signingUp && (
          <label>
            Display name
            <input name="displayName" autoComplete="nickname" required maxLength={100} />
          </label>
        )}
        <label>
          Email
          <input name="email" type="email" autoComplete="email" required />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete={signingUp ? 'new-password' : 'current-password'}
            required
            minLength={signingUp ? 8 : 1}
          />
        </label>
        {error && (
          <p id={`${id}-error`} role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {signingUp ? 'Sign up' : 'Sign in'}
        </button>
      </form>
      <p>
        {signingUp ? 'Already have an account? ' : 'New here? '}
        <AppLink to={signingUp ? '/sign-in' : '/sign-up'}>
          {signingUp ? 'Sign in' : 'Create an account'}
        </AppLink>
      </p>
    </main>
  );
}
