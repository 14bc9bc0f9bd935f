import type { z } from 'zod';
import { buildErrorResponse, type OpenAiErrorBody } from './error-response';

/** A 400 body shaped like vLLM's answer to a request that fails schema validation. */
export function validationErrorResponse(error: z.ZodError): OpenAiErrorBody {
  const issues = error.issues.map((issue) => `  ${bodyPath(issue.path)}: ${issue.message}`);
  const label = issues.length === 1 ? 'error' : 'errors';
  const first = error.issues[0];
  return buildErrorResponse({
    status: 400,
    type: 'Bad Request',
    message: `${issues.length} validation ${label}:\n${issues.join('\n')}`,
    param: first ? bodyPath(first.path) : null,
  });
}

export function invalidJsonErrorResponse(detail: string): OpenAiErrorBody {
  return buildErrorResponse({
    status: 400,
    type: 'Bad Request',
    message: `1 validation error:\n  body: JSON decode error: ${detail}`,
    param: 'body',
  });
}

function bodyPath(path: readonly PropertyKey[]): string {
  return ['body', ...path.map(String)].join('.');
}
