export { DEEP_CATEGORICAL_FIELDS, DEEP_NUMERIC_FIELDS, type DeepFieldName } from './deep-fields';
export {
  DEEP_EXTRACTION_PROMPT_VERSION,
  deepExtractionCorrection,
  deepExtractionMessages,
} from './extraction-prompt';
export {
  DEEP_WINDOW_USER_MESSAGES,
  type DeepFieldReport,
  deepExtractionJsonSchema,
  deepExtractionSchema,
} from './extraction-schema';
export {
  DEEP_EXTRACTION_MAX_TOKENS,
  deepExtractionParser,
  deepExtractionRequest,
} from './extraction-request';
export { type DeepExtractionResult, parseDeepExtraction } from './parse-extraction';
export {
  DEEP_EVERY_USER_TURNS,
  DEEP_MIN_USER_TURNS,
  deepExtractionDue,
  fastFeaturesShifted,
} from './schedule';
export { type ChatTurnText, extractionWindow, numberedTranscript, userMessagesOf } from './transcript';
