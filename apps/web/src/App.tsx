import { lazy, Suspense, useEffect, useState } from 'react';
import { api } from './api/client';
import { loadTokens, onTokensChange, saveTokens } from './api/session';
import { AuthPage } from './pages/AuthPage';
import { CharactersPage } from './pages/CharactersPage';
import { ChatPage } from './pages/ChatPage';
import { MePage } from './pages/MePage';
import { navigate, useRoute } from './router';

/** Staff pages load on demand, so the chat's bundle does not carry them. */
const ExperimentsPage = lazy(() =>
  import('./pages/ExperimentsPage').then((m) => ({ default: m.ExperimentsPage })),
);

/** Roles that may run experiments (admins pass every role check). */
const canExperiment = (roles: readonly string[]) => roles.includes('experimenter') || roles.includes('admin');

export function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => loadTokens() !== null);
  useEffect(() => onTokensChange((tokens) => setSignedIn(tokens !== null)), []);
  // The signed-in user's roles, for the staff links; null while unknown. The gateway checks every call anyway.
  const [roles, setRoles] = useState<string[] | null>(null);
  useEffect(() => {
    if (!signedIn) {
      setRoles(null);
      return;
    }
    let current = true;
    void api.GET('/v1/me').then(({ data }) => {
      if (current) setRoles(data?.roles ?? []);
    });
    return () => {
      current = false;
    };
  }, [signedIn]);

  if (!signedIn) {
    return <AuthPage mode={route.page === 'sign-up' ? 'sign-up' : 'sign-in'} />;
  }

  const signOut = async () => {
    await api.POST('/v1/auth/logout', { body: {} });
    saveTokens(null);
    navigate('/sign-in');
  };

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Echoloop</span>
        <nav aria-label="Main">
          <a
            href="/"
            aria-current={route.page === 'characters' ? 'page' : undefined}
            onClick={(event) => {
              event.preventDefault();
              navigate('/');
            }}
          >
            Characters
          </a>
          <a
            href="/chat"
            aria-current={route.page === 'chat' ? 'page' : undefined}
            onClick={(event) => {
              event.preventDefault();
              navigate('/chat');
            }}
          >
            Chats
          </a>
          <a
            href="/me"
            aria-current={route.page === 'me' ? 'page' : undefined}
            onClick={(event) => {
              event.preventDefault();
              navigate('/me');
            }}
          >
            Me
          </a>
          {roles && canExperiment(roles) && (
            <a
              href="/experiments"
              aria-current={route.page === 'experiments' ? 'page' : undefined}
              onClick={(event) => {
                event.preventDefault();
                navigate('/experiments');
              }}
            >
              Experiments
            </a>
          )}
        </nav>
        <button type="button" className="link-button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === 'experiments' ? (
          roles === null ? (
            <p className="page muted">Loading…</p>
          ) : canExperiment(roles) ? (
            <Suspense fallback={<p className="page muted">Loading…</p>}>
              <ExperimentsPage experimentId={route.experimentId} />
            </Suspense>
          ) : (
            <section className="page">
              <h1>Experiments</h1>
              <p role="alert">You do not have access to experiments.</p>
            </section>
          )
        ) : route.page === 'chat' ? (
          <ChatPage conversationId={route.conversationId} />
        ) : route.page === 'me' ? (
          <MePage />
        ) : (
          <CharactersPage />
        )}
      </main>
    </div>
  );
}
