import { userText } from '@echoloop/platform';
import { z } from 'zod';

export const sendMessageSchema = (maxChars: number) =>
  z
    .object({
      conversationId: z.uuid(),
      content: userText()
        .trim()
        .min(1, 'must not be empty')
        .max(maxChars, `must be at most ${maxChars} characters`),
      clientMessageId: userText().min(1).max(100),
    })
    .strict();

/** A reply may be longer than a user message: an edit is bounded by what a long reply holds. */
export const MAX_EDIT_CHARS = 16_000;

export const editReplySchema = z
  .object({
    content: userText()
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_EDIT_CHARS, `must be at most ${MAX_EDIT_CHARS} characters`),
  })
  .strict();

export type EditReplyInput = z.infer<typeof editReplySchema>;

export const stopSchema = z.object({ replyId: z.uuid() }).strict();

export const regenerateSchema = stopSchema;

export type SendMessageInput = z.infer<ReturnType<typeof sendMessageSchema>>;

export const resumeSchema = z.object({ conversationId: z.uuid() }).strict();
