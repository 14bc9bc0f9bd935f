import { z } from 'zod';

/**
 * vLLM's error body since v0.10.1 (vllm-project/vllm PR #22099): `{"error": {message, type, param, code}}`,
 * `code` being the HTTP status. Older versions sent the same fields flat with `"object": "error"`.
 */
export const openAiErrorBodySchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    param: z.string().nullable(),
    code: z.int(),
  }),
});
export type OpenAiErrorBody = z.infer<typeof openAiErrorBodySchema>;
export type OpenAiError = OpenAiErrorBody['error'];

const legacyVllmErrorBodySchema = z.object({
  object: z.literal('error'),
  message: z.string(),
  type: z.string(),
  param: z.string().nullable().optional(),
  code: z.int(),
});

export interface ErrorResponseInit {
  status: number;
  message: string;
  /** vLLM's names: `BadRequestError`, `NotFoundError`, `InternalServerError`, `Bad Request` (validation). */
  type?: string;
  param?: string | null;
}

export function buildErrorResponse(init: ErrorResponseInit): OpenAiErrorBody {
  return {
    error: {
      message: init.message,
      type: init.type ?? defaultErrorType(init.status),
      param: init.param ?? null,
      code: init.status,
    },
  };
}

/** vLLM's 404 for a `model` that is neither a served name nor a loaded adapter; it lists the served names only. */
export function modelNotFoundError(model: string, servedNames: readonly string[]): OpenAiErrorBody {
  return buildErrorResponse({
    status: 404,
    message: `The model \`${model}\` does not exist. Valid aliases: ${servedNames.join(', ')}.`,
    param: 'model',
  });
}

function defaultErrorType(status: number): string {
  if (status === 404) return 'NotFoundError';
  if (status >= 500) return 'InternalServerError';
  return 'BadRequestError';
}

/** Reads an error body in the current or the pre-0.10.1 vLLM shape. */
export function parseErrorResponse(body: unknown): OpenAiError | undefined {
  const current = openAiErrorBodySchema.safeParse(body);
  if (current.success) return current.data.error;
  const legacy = legacyVllmErrorBodySchema.safeParse(body);
  if (!legacy.success) return undefined;
  const { message, type, param, code } = legacy.data;
  return { message, type, param: param ?? null, code };
}
