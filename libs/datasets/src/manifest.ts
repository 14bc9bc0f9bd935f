import { z } from 'zod';
import { datasetFilters } from './filters';
import { DATASET_KINDS } from './kinds/catalog';
import { FORMATS } from './writers';

/** What a snapshot's manifest.json says: ids, filters, label versions, counts, schema version, sha256 of each file. */
export const manifestSchema = z.object({
  id: z.uuid(),
  kind: z.enum(DATASET_KINDS),
  format: z.enum(FORMATS),
  schemaVersion: z.number().int(),
  filters: datasetFilters,
  labelVersions: z.array(z.string()),
  privacy: z.object({
    pseudonyms: z.literal('hmac-sha256'),
    redaction: z.literal('regex-v1'),
    consentDefault: z.boolean(),
  }),
  rows: z.number().int(),
  turnsRead: z.number().int(),
  files: z.array(
    z.object({
      name: z.string(),
      rows: z.number().int(),
      bytes: z.number().int(),
      sha256: z.string().length(64),
    }),
  ),
  createdAt: z.iso.datetime(),
});

export type Manifest = z.infer<typeof manifestSchema>;
