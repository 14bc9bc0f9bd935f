import { DATASET_KINDS, datasetFilters, FORMATS } from '@echoloop/datasets';
import { EXPORT_ORIGINS, EXPORT_STATUSES } from '@echoloop/persistence';
import { z } from 'zod';

export const createExportSchema = z
  .object({
    kind: z.enum(DATASET_KINDS),
    format: z.enum(FORMATS).default('jsonl'),
    filters: datasetFilters.default({}),
  })
  .strict();
export type CreateExportInput = z.infer<typeof createExportSchema>;

export const exportView = z.object({
  id: z.uuid(),
  kind: z.enum(DATASET_KINDS),
  format: z.enum(FORMATS),
  filters: z.record(z.string(), z.unknown()),
  status: z.enum(EXPORT_STATUSES),
  origin: z.enum(EXPORT_ORIGINS).describe('Asked for over this API, or made by the command line'),
  progress: z.object({ read: z.number().int(), total: z.number().int().nullable() }),
  rows: z.number().int().nullable(),
  manifest: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('Ids, filters, label versions, counts, sha256'),
  error: z.string().nullable(),
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
});

export const exportList = z.object({ items: z.array(exportView) });
