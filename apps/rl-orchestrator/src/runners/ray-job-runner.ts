import { ServiceCallError } from '@echoloop/platform';
import { type RayResponse, rayRequest } from './ray-http';
import type { JobRunner, JobSpec, RunState, RunStatus } from './job-runner';

const STATES: Record<string, RunState> = {
  PENDING: 'pending',
  RUNNING: 'running',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  STOPPED: 'stopped',
};

/** A POSIX shell word: Ray runs the entrypoint through a shell. */
export const shellQuote = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * Ray's Jobs REST API on the head's dashboard: submit, status, logs, stop. The submission id is derived from our
 * job id, so a submit repeated after a crash finds the run it already started instead of starting another.
 */
export class RayJobRunner implements JobRunner {
  readonly name = 'ray' as const;

  constructor(
    private readonly dashboardUrl: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async submit(spec: JobSpec): Promise<string> {
    const submissionId = `echoloop-${spec.jobId}`;
    const response = await this.call('POST', '/api/jobs/', {
      entrypoint: spec.argv.map(shellQuote).join(' '),
      submission_id: submissionId,
      runtime_env: { env_vars: spec.env },
      entrypoint_num_cpus: 1,
      ...(spec.gpus > 0 && { entrypoint_num_gpus: spec.gpus }),
      metadata: { echoloop_job_id: spec.jobId },
    });
    if (response.status === 400 && /already exists/i.test(response.text)) return submissionId;
    if (!response.ok) throw new ServiceCallError('ray', response.status, `refused the job: ${response.text}`);
    return submissionId;
  }

  async status(externalId: string): Promise<RunStatus> {
    const response = await this.call('GET', `/api/jobs/${encodeURIComponent(externalId)}`);
    if (response.status === 404) return { state: 'lost', message: 'Ray does not know this job' };
    if (!response.ok) throw new ServiceCallError('ray', response.status, `status failed: ${response.text}`);
    const body = JSON.parse(response.text) as { status?: string; message?: string };
    const state = STATES[body.status ?? ''] ?? 'lost';
    return { state, ...(body.message && { message: body.message }) };
  }

  async logs(externalId: string): Promise<string> {
    const response = await this.call('GET', `/api/jobs/${encodeURIComponent(externalId)}/logs`);
    if (!response.ok) return '';
    return (JSON.parse(response.text) as { logs?: string }).logs ?? '';
  }

  async stop(externalId: string): Promise<void> {
    const response = await this.call('POST', `/api/jobs/${encodeURIComponent(externalId)}/stop`);
    if (!response.ok && response.status !== 404) {
      throw new ServiceCallError('ray', response.status, `did not stop the job: ${response.text}`);
    }
  }

  private call(method: string, route: string, body?: unknown): Promise<RayResponse> {
    return rayRequest(new URL(route, this.dashboardUrl), method, body, this.timeoutMs);
  }
}
