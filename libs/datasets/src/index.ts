export {
  DATASET_KINDS,
  type DatasetKind,
  exportDataset,
  type ExportRequest,
  type Manifest,
} from './export-dataset';
export { datasetFilters, type DatasetFilters } from './filters';
export { countLabelledTurns, labelledTurns, type LabelledTurn } from './kinds/labelled-turns';
export { DEFAULT_PAIRING, pairsOf, type PairingOptions } from './kinds/preferences';
export {
  DATASET_SCHEMA_VERSION,
  preferenceRecord,
  type PreferenceRecord,
  type Privacy,
  turnRecord,
  type TurnRecord,
} from './kinds/records';
export { pseudonymize } from './pseudonym';
export { redact, redactText, type PiiKind } from './redact';
export { type DatasetFormat, FORMATS } from './writers';
