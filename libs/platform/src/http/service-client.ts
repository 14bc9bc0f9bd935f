import type {
  HttpMethod,
  PathsWithMethod,
  RequestBodyJSON,
  SuccessResponseJSON,
} from 'openapi-typescript-helpers';
import { callJson } from './service-call';

/** The methods one app calls another with. */
export type ServiceMethod = Extract<HttpMethod, 'get' | 'post' | 'patch' | 'delete'>;
type Method = ServiceMethod;
/** A route's operation in an app's document. */
export type Operation<Paths, Route extends keyof Paths, M extends Method> =
  Paths[Route] extends Record<M, infer O extends Record<string | number, unknown>> ? O : never;
type Parameters<O> = O extends { parameters: infer P } ? P : never;

/** What a call sends, as the called app's document types it: path and query parameters, and the JSON body. */
export interface CallInput<O> {
  path?: Parameters<O> extends { path?: infer P } ? P : never;
  query?: Parameters<O> extends { query?: infer Q } ? Q : never;
  body?: RequestBodyJSON<O>;
}

/** Where the called app is, and the caller's key for it. */
export interface ServiceTarget {
  baseUrl: string;
  apiKey?: string;
  /** A signed-in person's access token instead of a key (the operator CLIs act as an admin). */
  bearer?: string;
  timeoutMs?: number;
}

/**
 * A client of another app's API, typed by that app's OpenAPI document (libs/vocabulary/src/openapi, written by
 * tools/web/write-api-types.ts): a route, its parameters, body and answer can only be what the app documents.
 * Calls go through callJson (one error type, ServiceCallError, and one timeout for every service call).
 */
export class ServiceClient<Paths extends object> {
  constructor(
    private readonly service: string,
    private readonly target: ServiceTarget,
  ) {}

  call<M extends Method, Route extends PathsWithMethod<Paths, M>>(
    method: M,
    route: Route,
    input: CallInput<Operation<Paths, Route, M>> = {},
  ): Promise<SuccessResponseJSON<Operation<Paths, Route, M>>> {
    const { target } = this;
    const values = (input.path ?? {}) as Record<string, unknown>;
    const pathname = String(route).replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(String(values[name])),
    );
    const url = new URL(pathname, target.baseUrl);
    for (const [key, value] of Object.entries((input.query ?? {}) as Record<string, unknown>)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return callJson(this.service, {
      method: method.toUpperCase() as Uppercase<M>,
      url: url.toString(),
      body: input.body,
      ...(target.apiKey !== undefined && { apiKey: target.apiKey }),
      ...(target.bearer !== undefined && { bearer: target.bearer }),
      ...(target.timeoutMs !== undefined && { timeoutMs: target.timeoutMs }),
    });
  }
}
