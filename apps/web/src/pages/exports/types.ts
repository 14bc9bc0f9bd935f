import type { Reply } from '../../api/client';

/** An export as `GET /v1/exports` gives it. */
export type DatasetExport = Reply<'get', '/v1/exports'>['items'][number];

export const KINDS = [
  { value: 'turns', label: 'Labelled turns' },
  { value: 'preferences', label: 'Preference pairs' },
] as const;

export const FORMATS = [
  { value: 'jsonl', label: 'JSONL' },
  { value: 'csv', label: 'CSV' },
] as const;

export const kindLabel = (kind: string) => KINDS.find((k) => k.value === kind)?.label ?? kind;

/** Whether the export may still change (the list polls while one does). */
export const inProgress = (e: DatasetExport) => e.status === 'queued' || e.status === 'running';
