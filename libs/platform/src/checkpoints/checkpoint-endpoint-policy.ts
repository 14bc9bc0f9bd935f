import type { CheckpointEndpoint } from '@echoloop/persistence';
import { z } from 'zod';

export const CHECKPOINT_ENDPOINT_REFUSED = 'checkpoint_endpoint_not_allowed';

const HOST_ENTRY = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d{1,5}))?$/;
const KEY_ENV_NAME = /^(LLM|CHECKPOINT)_[A-Z0-9_]+$/;

const csv = (item: z.ZodType<string, string>) =>
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));

/**
 * Variables of every app that calls checkpoints' endpoints (gateway, eval-runner); add with `.extend(...)`.
 * Hosts are `host` (any port) or `host:port`; the host of LLM_BASE_URL and LLM_API_KEY are always allowed.
 */
export const checkpointEndpointEnv = {
  CHECKPOINT_ALLOWED_HOSTS: csv(
    z
      .string()
      .transform((entry) => entry.toLowerCase())
      .pipe(z.string().regex(HOST_ENTRY, 'must be host or host:port')),
  ).default([]),
  /** Variables a checkpoint may name as its endpoints' key: only LLM_* / CHECKPOINT_* names, never another secret. */
  CHECKPOINT_API_KEY_ENVS: csv(
    z.string().regex(KEY_ENV_NAME, 'must name an LLM_* or CHECKPOINT_* variable'),
  ).default(['LLM_API_KEY']),
};

interface HostRule {
  hostname: string;
  port?: string;
}

export interface CheckpointEndpointPolicy {
  hosts: readonly HostRule[];
  apiKeyEnvs: readonly string[];
}

const effectivePort = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

export function checkpointEndpointPolicy(env: {
  LLM_BASE_URL: string;
  CHECKPOINT_ALLOWED_HOSTS: readonly string[];
  CHECKPOINT_API_KEY_ENVS: readonly string[];
}): CheckpointEndpointPolicy {
  const llm = new URL(env.LLM_BASE_URL);
  const configured = env.CHECKPOINT_ALLOWED_HOSTS.map((entry): HostRule => {
    const [, hostname = '', port] = HOST_ENTRY.exec(entry) ?? [];
    return port === undefined ? { hostname } : { hostname, port };
  });
  return {
    hosts: [{ hostname: llm.hostname, port: effectivePort(llm) }, ...configured],
    // The LLM_* variables configure the default checkpoint: their host and key are the operator's own.
    apiKeyEnvs: [...new Set(['LLM_API_KEY', ...env.CHECKPOINT_API_KEY_ENVS])],
  };
}

function baseUrlProblem(baseUrl: string, policy: CheckpointEndpointPolicy): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'must be a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry credentials';
  const port = effectivePort(url);
  const allowed = policy.hosts.some(
    (rule) => rule.hostname === url.hostname && (rule.port === undefined || rule.port === port),
  );
  return allowed ? undefined : `host ${url.host} is not in CHECKPOINT_ALLOWED_HOSTS`;
}

/** Why each endpoint may not be called with a key from here, by field (`endpoints.0.baseUrl`); empty when fine. */
export function checkpointEndpointProblems(
  endpoints: readonly CheckpointEndpoint[],
  policy: CheckpointEndpointPolicy,
): { path: string; message: string }[] {
  return endpoints.flatMap((endpoint, index) => {
    const problems: { path: string; message: string }[] = [];
    const host = baseUrlProblem(endpoint.baseUrl, policy);
    if (host) problems.push({ path: `endpoints.${index}.baseUrl`, message: host });
    if (endpoint.apiKeyEnv !== undefined && !policy.apiKeyEnvs.includes(endpoint.apiKeyEnv)) {
      problems.push({
        path: `endpoints.${index}.apiKeyEnv`,
        message: `${endpoint.apiKeyEnv} is not in CHECKPOINT_API_KEY_ENVS`,
      });
    }
    return problems;
  });
}

/** A stored checkpoint whose endpoints the configuration no longer allows: nothing is sent to them. */
export class CheckpointEndpointRefusedError extends Error {
  override readonly name = 'CheckpointEndpointRefusedError';
  readonly code = CHECKPOINT_ENDPOINT_REFUSED;

  constructor(
    readonly checkpointId: string,
    readonly problems: readonly { path: string; message: string }[],
  ) {
    super(
      `Checkpoint ${checkpointId} is refused: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    );
  }
}

/**
 * The endpoints to call for a checkpoint, each with its key read from the environment, checked against the policy
 * at the moment of use (a row stored under an older configuration is refused, its key never sent).
 */
export function checkpointModelEndpoints(
  checkpoint: { id: string; endpoints: readonly CheckpointEndpoint[] },
  policy: CheckpointEndpointPolicy,
  source: NodeJS.ProcessEnv = process.env,
): { baseUrl: string; apiKey: string }[] {
  const problems = checkpointEndpointProblems(checkpoint.endpoints, policy);
  if (problems.length > 0) throw new CheckpointEndpointRefusedError(checkpoint.id, problems);
  return checkpoint.endpoints.map((endpoint) => ({
    baseUrl: endpoint.baseUrl,
    apiKey: (endpoint.apiKeyEnv && source[endpoint.apiKeyEnv]) || 'none',
  }));
}
