/** Where a job stands on its runner. `lost`: the runner no longer knows it (Ray restarted, the process is gone). */
export type RunState = 'pending' | 'running' | 'succeeded' | 'failed' | 'stopped' | 'lost';

export interface RunStatus {
  state: RunState;
  message?: string;
}

export interface JobSpec {
  /** Our job id: the runner's submission is named after it, so a repeated submit never starts a second run. */
  jobId: string;
  argv: string[];
  env: Record<string, string>;
  /** GPUs the job needs on its worker (0: CPU only); Ray places it on a node that has them. */
  gpus: number;
  /** Where the job's own log goes when the runner keeps none (the local runner). */
  logFile: string;
}

/** One interface over Ray's Jobs API and a local child process. */
export interface JobRunner {
  readonly name: 'ray' | 'local';
  /** Starts the job; returns the runner's id for it. */
  submit(spec: JobSpec): Promise<string>;
  status(externalId: string): Promise<RunStatus>;
  /** The job's log so far (its tail is what the API shows). */
  logs(externalId: string): Promise<string>;
  /** Stops the job for real; resolves once the runner accepted the stop. */
  stop(externalId: string): Promise<void>;
  /** The orchestrator is stopping: end what would not outlive it. */
  close?(): void;
}

export const JOB_RUNNER = Symbol('JOB_RUNNER');
