import { useEffect, useState } from 'react';

/** The app's few pages, from the address bar (the gateway answers index.html for every non-API path). */
export type Route =
  | { page: 'sign-in' }
  | { page: 'sign-up' }
  | { page: 'characters' }
  | { page: 'me' }
  | { page: 'chat'; conversationId?: string }
  | { page: 'experiments'; experimentId?: string };

export function parseRoute(pathname: string): Route {
  if (pathname === '/sign-up') return { page: 'sign-up' };
  if (pathname === '/sign-in') return { page: 'sign-in' };
  if (pathname === '/me') return { page: 'me' };
  const experiments = /^\/experiments(?:\/([0-9a-f-]{36}))?\/?$/i.exec(pathname);
  if (experiments) {
    return experiments[1] ? { page: 'experiments', experimentId: experiments[1] } : { page: 'experiments' };
  }
  const chat = /^\/chat(?:\/([0-9a-f-]{36}))?\/?$/i.exec(pathname);
  if (chat) return chat[1] ? { page: 'chat', conversationId: chat[1] } : { page: 'chat' };
  return { page: 'characters' };
}

export function navigate(path: string): void {
  if (window.location.pathname === path) return;
  window.history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname));
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return route;
}
