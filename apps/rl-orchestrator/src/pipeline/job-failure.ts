/** A stage ended the job for good: `code` and a sentence, shown as the job's reason. */
export class JobFailure extends Error {
  override readonly name = 'JobFailure';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  get reason(): string {
    return `${this.code}: ${this.message}`;
  }
}
