import { datasetFilters, turnRecord, type TurnCursor } from '@echoloop/datasets';
import { z } from 'zod';

/** An opaque cursor: where the previous page ended, base64url JSON. */
const cursor = z
  .string()
  .max(256)
  .transform((value, ctx): TurnCursor => {
    try {
      const parsed = z
        .object({ repliedAt: z.string().max(64), turnId: z.uuid() })
        .parse(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')));
      if (Number.isNaN(Date.parse(parsed.repliedAt))) throw new Error('bad time');
      return parsed;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a cursor this API gave' });
      return z.NEVER;
    }
  });

export const encodeCursor = (at: TurnCursor): string => Buffer.from(JSON.stringify(at)).toString('base64url');

export const turnsQuery = datasetFilters.extend({
  cursor: cursor.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type TurnsQuery = z.infer<typeof turnsQuery>;

export const turnsPage = z.object({
  items: z.array(turnRecord),
  nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last one'),
});
