import { z } from 'zod';

export const createConversationSchema = z
  .object({
    characterId: z.uuid(),
    /** 0: the card's first message; 1..n: its alternate greetings. */
    greetingIndex: z.number().int().min(0).max(100).default(0),
  })
  .strict();

export const pageQuerySchema = z
  .object({
    before: z.uuid().optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .strict();

export type CreateConversationInput = z.infer<typeof createConversationSchema>;
export type PageQuery = z.infer<typeof pageQuerySchema>;
