import { Suspense, useEffect, useState } from 'react';
import { api } from './api/client';
import { loadTokens, onTokensChange, saveTokens } from './api/session';
import { AuthPage } from './pages/AuthPage';
import { CharactersPage } from './pages/CharactersPage';
import { ChatPage } from './pages/chat/ChatPage';
import { MePage } from './pages/MePage';
import { navigate, STAFF_SECTIONS, useRoute, type Route, type StaffSection } from './router';
import { mayOpen, STAFF_PAGES } from './staff-pages';
import { AppLink } from './ui/AppLink';

function StaffPage({ section, id, roles }: { section: StaffSection; id?: string; roles: string[] | null }) {
  const { label, component: Page } = STAFF_PAGES[section];
  if (roles === null) return <p className="page muted">Loading…</p>;
  if (!mayOpen(section, roles)) {
    return (
      <section className="page">
        <h1>{label}</h1>
        <p role="alert">You do not have access to {label.toLowerCase()}.</p>
      </section>
    );
  }
  return (
    <Suspense fallback={<p className="page muted">Loading…</p>}>
      <Page id={id} />
    </Suspense>
  );
}

function currentPage(route: Route, roles: string[] | null) {
  switch (route.page) {
    case 'staff':
      return <StaffPage section={route.section} id={route.id} roles={roles} />;
    case 'chat':
      return <ChatPage conversationId={route.conversationId} />;
    case 'me':
      return <MePage />;
    default:
      return <CharactersPage canImport={roles?.includes('admin') ?? false} />;
  }
}

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
  const staffSections = roles ? STAFF_SECTIONS.filter((section) => mayOpen(section, roles)) : [];

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Echoloop</span>
        <nav aria-label="Main">
          <AppLink to="/" current={route.page === 'characters'}>
            Characters
          </AppLink>
          <AppLink to="/chat" current={route.page === 'chat'}>
            Chats
          </AppLink>
          <AppLink to="/me" current={route.page === 'me'}>
            Me
          </AppLink>
        </nav>
        <button type="button" className="link-button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      {staffSections.length > 0 && (
        <nav aria-label="Team" className="team-nav">
          {staffSections.map((section) => (
            <AppLink
              key={section}
              to={`/${section}`}
              current={route.page === 'staff' && route.section === section}
            >
              {STAFF_PAGES[section].label}
            </AppLink>
          ))}
        </nav>
      )}
      <main id="main" tabIndex={-1}>
        {currentPage(route, roles)}
      </main>
    </div>
  );
}
