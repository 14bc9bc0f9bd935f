import { useEffect, useState } from 'react';

/** The pages for product teams, data teams and admins, each at `/<section>` or `/<section>/<id>`. */
export const STAFF_SECTIONS = [
  'experiments',
  'checkpoints',
  'rl-jobs',
  'evaluations',
  'turns',
  'exports',
  'users',
  'api-keys',
] as const;
export type StaffSection = (typeof STAFF_SECTIONS)[number];

/** The app's pages, from the address bar (the gateway answers index.html for every non-API path). */
export type Route =
  | { page: 'sign-in' }
  | { page: 'sign-up' }
  | { page: 'characters' }
  | { page: 'me' }
  | { page: 'chat'; conversationId?: string }
  | { page: 'staff'; section: StaffSection; id?: string };

const isStaffSection = (value: string): value is StaffSection =>
  (STAFF_SECTIONS as readonly string[]).includes(value);

export function parseRoute(pathname: string): Route {
  if (pathname === '/sign-up') return { page: 'sign-up' };
  if (pathname === '/sign-in') return { page: 'sign-in' };
  if (pathname === '/me') return { page: 'me' };
  const chat = /^\/chat(?:\/([0-9a-f-]{36}))?\/?$/i.exec(pathname);
  if (chat) return chat[1] ? { page: 'chat', conversationId: chat[1] } : { page: 'chat' };
  // Ids are uuids, checkpoint names or pseudonyms: a conservative charset, decoded by the page that uses it.
  const staff = /^\/([a-z-]+)(?:\/([A-Za-z0-9._:-]{1,128}))?\/?$/.exec(pathname);
  if (staff?.[1] && isStaffSection(staff[1])) {
    return staff[2]
      ? { page: 'staff', section: staff[1], id: staff[2] }
      : { page: 'staff', section: staff[1] };
  }
  return { page: 'characters' };
}

export function navigate(path: string): void {
  if (window.location.pathname + window.location.search === path) return;
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

/** `window.location.search`, kept current across `navigate` and the back button (filters live in the address). */
export function useSearch(): string {
  const [search, setSearch] = useState(() => window.location.search);
  useEffect(() => {
    const update = () => setSearch(window.location.search);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return search;
}
