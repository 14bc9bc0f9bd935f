export type CardImportErrorCode =
  | 'not_a_card'
  | 'truncated_png'
  | 'bad_crc'
  | 'bad_image'
  | 'too_large'
  | 'unsupported_spec'
  | 'invalid_card'
  | 'bad_archive';

/**
 * Why a file could not be read as a character card. Every code is the uploader's fault (a 4xx); `issues` lists
 * each schema problem as `path: message` when the code is `invalid_card`.
 */
export class CardImportError extends Error {
  constructor(
    readonly code: CardImportErrorCode,
    message: string,
    readonly issues: readonly string[] = [],
  ) {
    super(message);
    this.name = 'CardImportError';
  }
}
