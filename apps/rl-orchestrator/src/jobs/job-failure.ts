import { ModelError } from '@echoloop/llm';
import { ServiceCallError } from '@echoloop/platform';

/** A stage ended the job for good: `code` and a sentence, shown as the job's reason. */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  constructor(
    readonly code: string,
    message: string,
    /** The job's last log lines, when the failure comes from the job itself. */
    readonly logsTail?: string,
  ) {
    super(message);
  }

  get reason(): string {
    return `${this.code}: ${this.message}`;
  }
}

/** A service away or busy (an endpoint that timed out, a model server restarting): the step is tried again. */
export const transient = (error: unknown): boolean =>
  (error instanceof ServiceCallError && error.transient) || (error instanceof ModelError && error.retryable);
