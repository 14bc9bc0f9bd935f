import { z } from 'zod';

const message = z.object({ role: z.enum(['user', 'assistant']), content: z.string().max(20_000) }).strict();

/** One reply to score, with the dialogue it answers (ending with the user message) and an optional reference. */
export const scoreItemSchema = z
  .object({
    history: z.array(message).min(1).max(200),
    reply: z.string().max(20_000),
    reasoning: z.string().max(50_000).nullable().optional(),
    finishReason: z.enum(['stop', 'length', 'cancelled']).optional(),
    reference: z.string().max(20_000).nullable().optional(),
    /** With the user's next message, the live emotion reward is scored too (from `emotionScore`, default 40). */
    nextUserMessage: z.string().max(20_000).optional(),
    emotionScore: z.number().int().min(-1_000).max(100).optional(),
  })
  .strict()
  .refine((item) => item.history.at(-1)?.role === 'user', {
    message: 'history must end with the user message the reply answers',
    path: ['history'],
  });

export const scoreRequestSchema = z
  .object({
    items: z.array(scoreItemSchema).min(1).max(32),
    components: z
      .array(z.enum(['empathy', 'humanlike', 'live_emotion']))
      .min(1)
      .optional(),
  })
  .strict();

export type ScoreRequest = z.infer<typeof scoreRequestSchema>;
