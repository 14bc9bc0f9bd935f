import { useEffect, useState } from 'react';
import { api } from './api/client';
import { loadTokens, onTokensChange, saveTokens } from './api/session';
import { AuthPage } from './pages/AuthPage';
import { CharactersPage } from './pages/CharactersPage';
import { ChatPage } from './pages/ChatPage';
import { MePage } from './pages/MePage';
import { navigate, useRoute } from './router';

export function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => loadTokens() !== null);
  useEffect(() => onTokensChange((tokens) => setSignedIn(tokens !== null)), []);

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
        </nav>
        <button type="button" className="link-button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === 'chat' ? (
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
