import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface SignedIn {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives. */
  expiresIn: number;
}

interface Credentials {
  email: string;
  password: string;
}

/** REST calls the CLI needs, with the gateway's `{ error: { code, message } }` turned into readable errors. */
export class GatewayClient {
  private token?: string;
  private refreshToken?: string;
  private expiresAt = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  get accessToken(): string {
    if (!this.token) throw new Error('not signed in');
    return this.token;
  }

  /** An access token good for at least another minute: renewed with the refresh token when it is not (sockets). */
  async freshAccessToken(): Promise<string> {
    if (this.refreshToken && this.now() > this.expiresAt - 60_000) {
      const refreshToken = this.refreshToken;
      this.refreshToken = undefined;
      this.signedIn(await this.call<SignedIn>('POST', '/v1/auth/refresh', { refreshToken }));
    }
    return this.accessToken;
  }

  /** An access token lives minutes: a 401 renews the session once with the refresh token, then retries. */
  async call<T>(method: string, route: string, body?: unknown, renewed = false): Promise<T> {
    const res = await fetch(`${this.baseUrl}${route}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(this.token && { authorization: `Bearer ${this.token}` }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (res.status === 401 && this.refreshToken && !renewed && route !== '/v1/auth/refresh') {
      const refreshToken = this.refreshToken;
      this.refreshToken = undefined;
      this.signedIn(await this.call<SignedIn>('POST', '/v1/auth/refresh', { refreshToken }));
      return this.call(method, route, body, true);
    }
    const data = (await res.json().catch(() => ({}))) as T & { error?: { code: string; message: string } };
    if (!res.ok)
      throw new Error(
        `${method} ${route}: ${res.status} ${data.error?.code ?? ''} ${data.error?.message ?? ''}`,
      );
    return data;
  }

  /** Logs in with the credentials saved in `file`, or registers a new local account and saves them (0600). */
  async signIn(file: string, displayName: string): Promise<void> {
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
      this.signedIn(await this.call<SignedIn>('POST', '/v1/auth/login', saved));
      return;
    }
    const credentials = {
      email: `cli-${randomBytes(4).toString('hex')}@echoloop.local`,
      password: randomBytes(18).toString('base64url'),
    };
    const tokens = await this.call<SignedIn>('POST', '/v1/auth/register', { ...credentials, displayName });
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
    this.signedIn(tokens);
  }

  private signedIn({ accessToken, refreshToken, expiresIn }: SignedIn): void {
    this.token = accessToken;
    this.refreshToken = refreshToken;
    this.expiresAt = this.now() + expiresIn * 1_000;
  }
}
