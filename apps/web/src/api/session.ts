/** The signed-in session's tokens, kept in localStorage so a reload stays signed in. */
export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

const KEY = 'echoloop.session';
type Listener = (tokens: Tokens | null) => void;
const listeners = new Set<Listener>();

export function loadTokens(): Tokens | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    if (
      parsed &&
      typeof parsed === 'object' &&
      'accessToken' in parsed &&
      'refreshToken' in parsed &&
      typeof parsed.accessToken === 'string' &&
      typeof parsed.refreshToken === 'string'
    ) {
      return { accessToken: parsed.accessToken, refreshToken: parsed.refreshToken };
    }
  } catch {
    // A broken entry is the same as none.
  }
  return null;
}

export function saveTokens(tokens: Tokens | null): void {
  if (tokens) localStorage.setItem(KEY, JSON.stringify(tokens));
  else localStorage.removeItem(KEY);
  listeners.forEach((listener) => listener(tokens));
}

export function onTokensChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
