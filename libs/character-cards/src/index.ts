export { mainIconPath, sniffImageType } from './card-assets';
export { CardImportError, type CardImportErrorCode } from './card-import-error';
export {
  type CardAsset,
  cardAssetSchema,
  type CharacterBook,
  characterBookSchema,
  type CharacterCard,
  type CharacterCardData,
  characterCardSchema,
  type CharacterCardV2,
  characterCardV2Schema,
  type CharacterCardV3,
  characterCardV3Schema,
  extensionsSchema,
  type LorebookEntry,
  lorebookEntrySchema,
  SUPPORTED_SPECS,
} from './card-schema';
export { toV2Backfill, upgradeV2, V3_BACKFILL_NOTICE } from './card-versions';
export { type CardAssets, embeddedAssetPath, isSafeArchivePath } from './charx-archive';
export { type Decorator, parseDecorators, SPEC_DECORATORS } from './decorators';
export { type ChatKind, listGreetings } from './greetings';
export { type CardLimits, DEFAULT_CARD_LIMITS } from './limits';
export {
  type ActivatedEntry,
  type ActivationReason,
  activateLorebook,
  DEFAULT_RECURSION_LIMIT,
  DEFAULT_SCAN_DEPTH,
  type LorebookActivation,
  type LorebookScanOptions,
} from './lorebook';
export { applyMacros, characterNameForMacros, type MacroValues } from './macros';
export {
  type CardFormat,
  importCard,
  type ImportedCard,
  parseCardJson,
  readCardFromCharx,
  readCardFromPng,
} from './parse';
export { CHARX_MAIN_ICON_PATH, cardToJson, writeCardToCharx, writeCardToPng } from './serialize';
export { createSolidPng } from './solid-png';
