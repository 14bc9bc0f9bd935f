import { datasetFilters, turnRecord } from '@echoloop/datasets';
import { dateTime, SignedCursors } from '@echoloop/schemas';
import { z } from 'zod';

/** What a turns cursor holds: where the previous page ended (keyset paging). */
export const turnCursor = z.object({ repliedAt: dateTime(), turnId: z.uuid() }).strict();

export const turnsQuery = datasetFilters.extend({
  cursor: SignedCursors.field().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type TurnsQuery = z.infer<typeof turnsQuery>;

export const turnsPage = z.object({
  items: z.array(turnRecord),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last one'),
});
