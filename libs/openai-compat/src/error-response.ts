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

/**
 * OpenAI's own error shape for an error the gateway raised (`{code, message}`): the SDKs pick their error class by
 * status and read `type` and `code`; ours keeps its precise code unless OpenAI has a name its clients know.
 */
export function openAiErrorFor(status: number, code: string, message: string, param: string | null = null) {
  return { error: { message, type: openAiErrorType(status), param, code: OPENAI_CODES[code] ?? code } };
}

const OPENAI_CODES: Readonly<Record<string, string>> = {
  unauthorized: 'invalid_api_key',
  api_key_invalid: 'invalid_api_key',
  api_key_revoked: 'invalid_api_key',
  api_key_expired: 'invalid_api_key',
  api_key_rotated: 'invalid_api_key',
  api_key_owner_inactive: 'invalid_api_key',
  rate_limited: 'rate_limit_exceeded',
  too_many_streams: 'rate_limit_exceeded',
  quota_exceeded: 'insufficient_quota',
  model_not_found: 'model_not_found',
};

function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
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
