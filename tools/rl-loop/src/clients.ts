import {
  Backoff,
  type CallInput,
  type Operation,
  ServiceCallError,
  ServiceClient,
  type ServiceMethod,
  type ServiceTarget,
  sleep,
} from '@echoloop/platform';
import type { EvalRunnerPaths, GatewayPaths } from '@echoloop/vocabulary';
import type { PathsWithMethod } from 'openapi-typescript-helpers';

/** Tries after the first: a busy engine (503) drains within seconds here. */
const RETRIES = 3;
const RETRY_DELAYS = { initialMs: 1_000, maxMs: 5_000 };
/** The loop's calls wait on the CPU engine (a reply, a simulator turn, an evaluation's start). */
const TIMEOUT_MS = 600_000;

/**
 * Worth another try: the service answered 503 (the engine is busy), or the connection was refused or dropped before
 * an answer (a kept-alive socket the server closed as it was reused: the request never ran). A call that timed out
 * may have run, so it is not sent again.
 */
const retryable = (error: unknown) =>
  error instanceof ServiceCallError && (error.status === 503 || (error.status === null && !error.timedOut));

/** A client of one of the apps the loop drives, typed by that app's OpenAPI document, retrying what `retryable` says. */
export class LoopClient<Paths extends object> {
  private readonly client: ServiceClient<Paths>;

  constructor(service: string, target: ServiceTarget) {
    this.client = new ServiceClient<Paths>(service, { timeoutMs: TIMEOUT_MS, ...target });
  }

  async call<M extends ServiceMethod, Route extends PathsWithMethod<Paths, M>>(
    method: M,
    route: Route,
    input: CallInput<Operation<Paths, Route, M>> = {},
  ) {
    const backoff = new Backoff(RETRY_DELAYS);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.client.call(method, route, input);
      } catch (error) {
        if (attempt >= RETRIES || !retryable(error)) throw error;
        await sleep(backoff.next());
      }
    }
  }
}

/** The gateway, as a staff service (`apiKey`), as one signed-in user (`bearer`) or as anyone (neither). */
export const gateway = (baseUrl: string, auth: Pick<ServiceTarget, 'apiKey' | 'bearer'> = {}) =>
  new LoopClient<GatewayPaths>('chat-gateway', { baseUrl, ...auth });

export const evalRunner = (baseUrl: string, apiKey: string) =>
  new LoopClient<EvalRunnerPaths>('eval-runner', { baseUrl, apiKey });
