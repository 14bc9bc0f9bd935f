import { type z } from 'zod';

/** Thrown at start-up when the environment does not match an app's schema; names every bad variable. */
export class EnvValidationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvValidationError';
  }
}

/** Validates the environment once, at start-up, into a typed and frozen object. */
export function loadEnv<S extends z.ZodType<Record<string, unknown>>>(
  schema: S,
  source: NodeJS.ProcessEnv = process.env,
): Readonly<z.infer<S>> {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new EnvValidationError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.') || '(root)';
        const value = source[name];
        return value === undefined ? `${name}: missing (${issue.message})` : `${name}: ${issue.message}`;
      }),
    );
  }
  return Object.freeze(result.data);
}
