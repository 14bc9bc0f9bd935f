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

/**
 * All the text of one batch together (history, replies, reasoning, references, next messages): what bounds the
 * body (see SCORE_BODY_LIMIT_BYTES), as the per-field maxima times the items would allow hundreds of megabytes.
 */
export const MAX_SCORE_BATCH_CHARS = 1_000_000;

const batchChars = (items: z.infer<typeof scoreItemSchema>[]) =>
  items.reduce(
    (sum, item) =>
      sum +
      item.history.reduce((chars, message) => chars + message.content.length, 0) +
      item.reply.length +
      (item.reasoning?.length ?? 0) +
      (item.reference?.length ?? 0) +
      (item.nextUserMessage?.length ?? 0),
    0,
  );

export const scoreRequestSchema = z
  .object({
    items: z
      .array(scoreItemSchema)
      .min(1)
      .max(32)
      .refine(
        (items) => batchChars(items) <= MAX_SCORE_BATCH_CHARS,
        `the batch's text must be at most ${MAX_SCORE_BATCH_CHARS} characters in all; split it`,
      ),
    components: z
      .array(z.enum(['empathy', 'humanlike', 'live_emotion']))
      .min(1)
      .max(3)
      .optional(),
  })
  .strict();

export type ScoreRequest = z.infer<typeof scoreRequestSchema>;

/** Each item's labels, as live labelling would store them, and the composite reward of those that labelled. */
export const scoreResponseSchema = z.object({
  rewardVersion: z.string(),
  items: z.array(
    z.object({
      components: z.array(
        z.object({
          component: z.enum(['empathy', 'humanlike', 'live_emotion']),
          status: z.string(),
          value: z.number().nullable(),
          label: z.string().nullable(),
          judgeModel: z.string().nullable(),
          promptVersion: z.string().nullable(),
          error: z.string().nullable(),
          details: z.record(z.string(), z.unknown()).nullable(),
        }),
      ),
      composite: z
        .object({ value: z.number() })
        .loose()
        .nullable()
        .describe('null when no component labelled'),
    }),
  ),
});
