/** PostgreSQL error codes the application turns into answers (23505 → 409, 23503 → 409, ...). */
export const PG_ERROR = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
} as const;

/** The SQLSTATE of a database error raised through TypeORM, if it is one. */
export function pgErrorCode(error: unknown): string | undefined {
  const code = (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A value PostgreSQL could not take as its type (SQLSTATE class 22, "data exception"): the input's fault. */
export const isDataException = (error: unknown): boolean => pgErrorCode(error)?.startsWith('22') ?? false;
