import {
  type CallInput,
  type Operation,
  ServiceCallError,
  ServiceClient,
  type ServiceMethod,
} from '@echoloop/platform';
import type { GatewayPaths } from '@echoloop/vocabulary';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PathsWithMethod } from 'openapi-typescript-helpers';

interface SignedIn {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives. */
  expiresIn: number;
}

const NO_SESSION = ['/v1/auth/refresh', '/v1/auth/login', '/v1/auth/register'] as const;

interface Credentials {
  email: string;
  password: string;
}

/** The gateway's REST API as its OpenAPI document types it, signed in as the CLI's local account. */
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
    if (this.refreshToken && this.now() > this.expiresAt - 60_000) await this.renew();
    return this.accessToken;
  }

  /** A refresh token is used once: the next renewal needs the one this answer brings. */
  private async renew(): Promise<void> {
    const refreshToken = this.refreshToken;
    if (!refreshToken) throw new Error('not signed in');
    this.refreshToken = undefined;
    this.signedIn(await this.call('post', '/v1/auth/refresh', { body: { refreshToken } }));
  }

  /** An access token lives minutes: a 401 renews the session once with the refresh token, then retries. */
  async call<M extends ServiceMethod, Route extends PathsWithMethod<GatewayPaths, M>>(
    method: M,
    route: Route,
    input: CallInput<Operation<GatewayPaths, Route, M>> = {},
  ) {
    try {
      return await this.client().call(method, route, input);
    } catch (error) {
      const sessionRoute = (NO_SESSION as readonly string[]).includes(String(route));
      if (!(error instanceof ServiceCallError) || error.status !== 401 || !this.refreshToken || sessionRoute)
        throw error;
      await this.renew();
      return this.client().call(method, route, input);
    }
  }

  /** The gateway as the session stands now (its current access token, if signed in). */
  private client(): ServiceClient<GatewayPaths> {
    return new ServiceClient('chat-gateway', {
      baseUrl: this.baseUrl,
      ...(this.token && { bearer: this.token }),
    });
  }

  /** Logs in with the credentials saved in `file`, or registers a new local account and saves them (0600). */
  async signIn(file: string, displayName: string): Promise<void> {
    if (existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Credentials;
      this.signedIn(await this.call('post', '/v1/auth/login', { body: saved }));
      return;
    }
    const credentials = {
      email: `cli-${randomBytes(4).toString('hex')}@echoloop.local`,
      password: randomBytes(18).toString('base64url'),
    };
    const tokens = await this.call('post', '/v1/auth/register', { body: { ...credentials, displayName } });
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
