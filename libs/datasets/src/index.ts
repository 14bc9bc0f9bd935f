export { DATASET_KINDS, type DatasetKind } from './kinds/catalog';
export { sftRecord, type SftRecord, verlRecord, type VerlRecord } from './kinds/training';
export { exportDataset, type ExportRequest } from './export-dataset';
export { type Manifest, manifestSchema } from './manifest';
export { RECORD_SCHEMAS, recordJsonSchemas } from './record-schemas';
export {
  datasetFilters,
  type DatasetFilters,
  LABEL_STATUSES,
  type LabelStatus,
  POPULATIONS,
  type Population,
} from './filters';
export {
  countLabelledTurns,
  labelledTurns,
  type LabelledTurn,
  pageOfTurns,
  type TurnCursor,
} from './kinds/labelled-turns';
export { DEFAULT_PAIRING, pairsOf, type PairingOptions } from './kinds/preferences';
export {
  DATASET_SCHEMA_VERSION,
  preferenceRecord,
  type PreferenceRecord,
  type Privacy,
  turnRecord,
  type TurnRecord,
  toTurnRecord,
} from './kinds/records';
export { pseudonymize } from './pseudonym';
export { redact, redactText, type PiiKind } from './redact';
export { type DatasetFormat, FORMATS } from './writers';
export { datasetEnvShape, pseudonymKey, requireKeyInProduction } from './dataset-env';
export { InvalidSnapshotError, splitByUser, type SplitFiles, type SplitSource } from './user-split';
export { countDatasetRecords } from './export-dataset';
export { LabelledTurnsSource } from './labelled-turns-source';
export { ArtifactStore, LocalArtifactStore } from './exports/artifact-store';
export { S3ArtifactStore, type S3Settings } from './exports/s3-artifact-store';
export { artifactStoreOf } from './exports/artifact-store-of';
export { ExportsRepository } from './exports/exports.repository';
export { EXPORT_LEASE_MS, type ExportJobResult, runExportJob } from './exports/export-job';
