import createClient, { type ClientPathsWithMethod, type MethodResponse } from 'openapi-fetch';
import type { GatewayComponents as components, GatewayPaths as paths } from '@echoloop/vocabulary';
import { loadTokens, saveTokens } from './session';

/** The gateway's error body: `{ error: { code, message, details? } }`. */
export type ApiError = components['schemas']['Error'];

const baseUrl = window.location.origin;

/** Without credentials: sign-up, sign-in and refresh. */
export const publicApi = createClient<paths>({ baseUrl });

let refreshing: Promise<boolean> | null = null;

/**
 * Trades the refresh token for a new pair, once for every request that needs it at the same time (each refresh
 * token works once; presenting a used one ends the session). Signs out when the session is gone.
 */
export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    const tokens = loadTokens();
    if (!tokens) return false;
    const { data } = await publicApi.POST('/v1/auth/refresh', {
      body: { refreshToken: tokens.refreshToken },
    });
    if (!data) {
      // Only sign out when nobody stored newer tokens meanwhile (another tab refreshed first).
      if (loadTokens()?.refreshToken === tokens.refreshToken) saveTokens(null);
      return false;
    }
    saveTokens({ accessToken: data.accessToken, refreshToken: data.refreshToken });
    return true;
  })().finally(() => (refreshing = null));
  return refreshing;
}

function withToken(request: Request): Request {
  const token = loadTokens()?.accessToken;
  if (token) request.headers.set('authorization', `Bearer ${token}`);
  return request;
}

/** Sends the access token; on a 401 refreshes the session once and retries the request with the new token. */
async function authorisedFetch(request: Request): Promise<Response> {
  const retry = request.clone();
  const response = await fetch(withToken(request));
  if (response.status !== 401 || !loadTokens()) return response;
  if (!(await refreshSession())) return response;
  return fetch(withToken(retry));
}

/** The gateway's REST API, typed from its OpenAPI document (libs/vocabulary/src/openapi, tools/web/write-api-types.ts). */
export const api = createClient<paths>({ baseUrl, fetch: authorisedFetch });

/** A readable sentence from a failed call's error body. */
export function errorMessage(error: unknown, fallback = 'Something went wrong; try again'): string {
  if (error && typeof error === 'object' && 'error' in error) {
    const inner = (error as ApiError).error;
    if (inner?.message) return inner.message;
  }
  return fallback;
}

/** A route's success body as the client returns it, e.g. `Reply<'get', '/v1/checkpoints'>`. */
export type Reply<
  Method extends 'get' | 'post' | 'patch' | 'delete',
  Path extends ClientPathsWithMethod<typeof api, Method>,
> = MethodResponse<typeof api, Method, Path>;
