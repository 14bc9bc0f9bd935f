import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { JobRunner, JobSpec, RunStatus } from './job-runner';

interface LocalRun {
  child: ChildProcess;
  logFile: string;
  status: RunStatus;
  stopping: boolean;
}

/**
 * Runs a job as a child process of this orchestrator (machines without Ray). A run exists only while this process
 * lives: after a restart its jobs are `lost`, and the driver fails them instead of waiting forever.
 */
export class LocalJobRunner implements JobRunner {
  readonly name = 'local' as const;
  private readonly runs = new Map<string, LocalRun>();

  async submit(spec: JobSpec): Promise<string> {
    const id = `local-${spec.jobId}`;
    if (this.runs.has(id)) return id;
    await mkdir(path.dirname(spec.logFile), { recursive: true });
    const log = createWriteStream(spec.logFile, { flags: 'a' });
    const [command = '', ...args] = spec.argv;
    const child = spawn(command, args, {
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const run: LocalRun = { child, logFile: spec.logFile, status: { state: 'running' }, stopping: false };
    child.on('error', (error) => {
      run.status = { state: 'failed', message: `could not start: ${error.message}` };
      log.end();
    });
    child.on('exit', (code, signal) => {
      if (run.stopping) run.status = { state: 'stopped', message: `stopped (${signal ?? code})` };
      else if (code === 0) run.status = { state: 'succeeded' };
      else run.status = { state: 'failed', message: `exited with ${signal ?? `code ${code}`}` };
      log.end();
    });
    this.runs.set(id, run);
    return id;
  }

  status(externalId: string): Promise<RunStatus> {
    const run = this.runs.get(externalId);
    return Promise.resolve(
      run?.status ?? {
        state: 'lost',
        message: 'the local process ended with an earlier orchestrator process',
      },
    );
  }

  async logs(externalId: string): Promise<string> {
    const run = this.runs.get(externalId);
    return run ? readFile(run.logFile, 'utf8').catch(() => '') : '';
  }

  stop(externalId: string): Promise<void> {
    const run = this.runs.get(externalId);
    if (run && run.status.state === 'running') {
      run.stopping = true;
      run.child.kill('SIGTERM');
    }
    return Promise.resolve();
  }

  /** Ends every run (the orchestrator is shutting down: its children would be orphans). */
  close(): void {
    for (const run of this.runs.values()) if (run.status.state === 'running') run.child.kill('SIGTERM');
  }
}
