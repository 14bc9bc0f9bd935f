import { HttpException } from '@nestjs/common';

/**
 * The fields by which body-parser, raw-body and every other http-errors user mark an error as the client's
 * fault: `status`/`statusCode`, `expose` (true when the message is safe to show) and a stable `type`.
 */
interface FrameworkError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  code?: unknown;
  limit?: unknown;
}

/** The public `code` for a status when nothing more precise is known. */
export const ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  502: 'bad_gateway',
  503: 'unavailable',
};

interface Mapped {
  status: number;
  code: string;
  message: string;
}

const BY_TYPE: Record<string, Mapped> = {
  'entity.too.large': {
    status: 413,
    code: 'payload_too_large',
    message: 'The request body is larger than this route accepts',
  },
  'parameters.too.many': {
    status: 413,
    code: 'payload_too_large',
    message: 'The form has too many parameters',
  },
  'charset.unsupported': {
    status: 415,
    code: 'unsupported_charset',
    message: 'The body charset is not supported; send UTF-8',
  },
  'encoding.unsupported': {
    status: 415,
    code: 'unsupported_encoding',
    message: 'The Content-Encoding is not supported; send identity, gzip, deflate or br',
  },
  'entity.parse.failed': {
    status: 400,
    code: 'malformed_body',
    message: 'The request body is not valid JSON',
  },
  'request.aborted': { status: 400, code: 'request_aborted', message: 'The request was aborted' },
  'request.size.invalid': {
    status: 400,
    code: 'malformed_body',
    message: 'The request body does not match its Content-Length',
  },
};

const DECOMPRESSION_FAILED: Mapped = {
  status: 400,
  code: 'malformed_body',
  message: 'The request body could not be decompressed',
};

/**
 * The public error for what the framework rejected before a handler ran (body too large, unknown charset or
 * encoding, bad JSON or gzip, aborted): recognised by `type`, `status` and `expose`, never by message text.
 * Any other exposed 4xx keeps its status. Undefined for everything else (a server fault stays a 500).
 */
export function toClientError(error: unknown): HttpException | undefined {
  if (error instanceof HttpException || typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode, expose, type, code, limit } = error as FrameworkError;
  const httpStatus = typeof status === 'number' ? status : statusCode;
  if (typeof httpStatus !== 'number' || httpStatus < 400 || httpStatus > 499 || expose !== true)
    return undefined;
  const mapped =
    (typeof type === 'string' ? BY_TYPE[type] : undefined) ??
    (typeof code === 'string' && code.startsWith('Z_') ? DECOMPRESSION_FAILED : undefined);
  const { code: publicCode, message } = mapped ?? {
    code: ERROR_CODES[httpStatus] ?? 'bad_request',
    message: 'The request was refused before it reached the route',
  };
  const details = typeof limit === 'number' && mapped?.status === 413 ? { limitBytes: limit } : undefined;
  return new HttpException(
    { error: { code: publicCode, message, ...(details && { details }) } },
    mapped?.status ?? httpStatus,
  );
}
