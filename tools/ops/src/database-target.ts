/**
 * The database a backup reads or a restore writes, from a DATABASE_URL. The password is kept apart: the tools get
 * it in PGPASSWORD (never on a command line, where `ps` shows it), and nothing printed holds it.
 */
export interface DatabaseTarget {
  /** The database's name. */
  name: string;
  /** `user@host:port/name`: what progress and errors say. */
  display: string;
  /** The URL without its password, for pg_dump's and pg_restore's --dbname. */
  urlWithoutPassword: string;
  password: string | null;
  /** The full URL, for a node-postgres client only. */
  url: string;
}

export function databaseTarget(url: string): DatabaseTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('DATABASE_URL is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error('DATABASE_URL must be a postgres:// URL');
  }
  const user = decodeURIComponent(parsed.username);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
  if (!name) throw new Error('DATABASE_URL names no database');
  const password = parsed.password ? decodeURIComponent(parsed.password) : null;
  const bare = new URL(parsed.toString());
  bare.password = '';
  return {
    name,
    display: `${user ? `${user}@` : ''}${parsed.host}/${name}`,
    urlWithoutPassword: bare.toString(),
    password,
    url,
  };
}

/** Text with every occurrence of the secret (as typed and as URL-encoded) replaced by `***`. */
export function scrub(text: string, secret: string | null): string {
  if (!secret) return text;
  return [secret, encodeURIComponent(secret)].reduce((out, s) => out.split(s).join('***'), text);
}
