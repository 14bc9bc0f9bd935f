import {
  type CallInput,
  type Operation,
  ServiceCallError,
  ServiceClient,
  type ServiceMethod,
} from '@echoloop/platform';
import type { PathsWithMethod } from 'openapi-typescript-helpers';
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Response } from 'express';
import type { GatewayEnv } from '../env';

/** Where one staff service is and the gateway's own API key for it; unset when this gateway is not wired to it. */
export interface UpstreamConfig {
  /** The service's name, as its API keys are scoped (`rl-orchestrator`, `eval-runner`). */
  service: string;
  /** How the service is named to users: "The RL orchestrator". */
  label: string;
  url: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
}

/**
 * The gateway could not get an answer from a staff service: 503 (not configured, unreachable, its key refused) or
 * 502 (it failed). Unlike other 5xx its message is for the client; UpstreamErrorFilter sends it as it is.
 */
export class UpstreamException extends HttpException {
  constructor(
    status: 502 | 503,
    readonly code: string,
    message: string,
  ) {
    super({ error: { code, message } }, status);
    this.message = message;
  }
}

/** Sends an UpstreamException's own body (the platform's filter hides every 5xx's), with Retry-After on a 503. */
@Catch(UpstreamException)
export class UpstreamErrorFilter implements ExceptionFilter {
  catch(exception: UpstreamException, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    if (exception.getStatus() === 503) res.setHeader('Retry-After', '5');
    res.status(exception.getStatus()).json(exception.getResponse());
  }
}

const isErrorBody = (body: unknown): body is { error: { code: string; message: string } } => {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null | undefined)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
};

/**
 * One staff service behind the gateway, called with the gateway's service API key (never shown to anyone): its
 * answers come back as they are, its refusals (4xx) with their status and body, and its absence as a clear 503.
 */
/** The staff services behind the gateway: how users hear of each, and where its URL and the gateway's key are. */
const STAFF_SERVICES = {
  'eval-runner': {
    label: 'The eval-runner',
    config: (env: GatewayEnv) => ({ url: env.EVAL_RUNNER_URL, apiKey: env.EVAL_RUNNER_API_KEY }),
  },
  'rl-orchestrator': {
    label: 'The RL orchestrator',
    config: (env: GatewayEnv) => ({ url: env.RL_ORCHESTRATOR_URL, apiKey: env.RL_ORCHESTRATOR_API_KEY }),
  },
} as const;

/** A staff service as this gateway's configuration places it. */
export const staffService = <Paths extends object>(service: keyof typeof STAFF_SERVICES, env: GatewayEnv) =>
  new Upstream<Paths>({
    service,
    label: STAFF_SERVICES[service].label,
    ...STAFF_SERVICES[service].config(env),
    timeoutMs: env.STAFF_SERVICES_TIMEOUT_MS,
  });

export class Upstream<Paths extends object> {
  private readonly logger: Logger;
  /** None when this gateway is not wired to the service. */
  private readonly client: ServiceClient<Paths> | undefined;

  constructor(private readonly config: UpstreamConfig) {
    this.logger = new Logger(`Upstream(${config.service})`);
    const { service, url, apiKey, timeoutMs } = config;
    this.client =
      url && apiKey ? new ServiceClient<Paths>(service, { baseUrl: url, apiKey, timeoutMs }) : undefined;
  }

  get configured(): boolean {
    return this.client !== undefined;
  }

  /** A call of a route the service documents, typed by its OpenAPI document. */
  async call<M extends ServiceMethod, Route extends PathsWithMethod<Paths, M>>(
    method: M,
    route: Route,
    input: CallInput<Operation<Paths, Route, M>> = {},
  ) {
    if (!this.client) {
      throw new UpstreamException(
        503,
        'service_not_configured',
        `${this.config.label} is not configured on this gateway; ask an administrator`,
      );
    }
    try {
      return await this.client.call(method, route, input);
    } catch (error) {
      throw this.translate(error);
    }
  }

  private translate(error: unknown): unknown {
    if (!(error instanceof ServiceCallError)) return error;
    const { label } = this.config;
    if (error.status === null) {
      this.logger.warn(`unreachable: ${error.message}`);
      return new UpstreamException(
        503,
        'service_unavailable',
        `${label} is not reachable; try again shortly`,
      );
    }
    if (error.status === 401 || error.status === 403) {
      // The gateway's own key was refused: the user's rights were checked here already, so it is configuration.
      this.logger.error(`refused the gateway's API key (${error.status}): check its key and scope`);
      return new UpstreamException(
        503,
        'service_unavailable',
        `${label} refused this gateway's credentials; ask an administrator`,
      );
    }
    if (error.status >= 500) {
      this.logger.warn(`failed: ${error.message}`);
      return error.status === 503
        ? new UpstreamException(503, 'service_unavailable', `${label} is unavailable; try again shortly`)
        : new UpstreamException(502, 'bad_gateway', `${label} failed to answer (${error.status})`);
    }
    const body = isErrorBody(error.body)
      ? error.body
      : { error: { code: error.code ?? 'upstream_refused', message: error.message } };
    return new HttpException(body, error.status);
  }
}
