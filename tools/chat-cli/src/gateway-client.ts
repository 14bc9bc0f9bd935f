import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

interface Credentials {
  email: string;
  password: string;
}

/** REST calls the CLI needs, with the gateway's `{ error: { code, message } }` turned into readable errors. */
export class GatewayClient {
  private token?: string;

  constructor(private readonly baseUrl: string) {}

  get accessToken(): string {
    if (!this.token) throw new Error('not signed in');
    return this.token;
  }

  async call<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${route}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(this.token && { authorization: `Bearer ${this.token}` }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
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
      this.token = (await this.call<{ accessToken: string }>('POST', '/v1/auth/login', saved)).accessToken;
      return;
    }
    const credentials = {
      email: `cli-${randomBytes(4).toString('hex')}@echoloop.local`,
      password: randomBytes(18).toString('base64url'),
    };
    const { accessToken } = await this.call<{ accessToken: string }>('POST', '/v1/auth/register', {
      ...credentials,
      displayName,
    });
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });
    this.token = accessToken;
  }
}
