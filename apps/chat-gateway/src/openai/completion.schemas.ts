import { userText } from '@echoloop/platform';
import { CHAT_ROLES } from '@echoloop/vocabulary';
import { z } from 'zod';
import { MAX_EDIT_CHARS } from '../chat/chat.schemas';

/** OpenAI's content: a string, or text parts (the SDKs' array form); other parts (images, audio) are refused. */
const content = z
  .union([userText(), z.array(z.object({ type: z.literal('text'), text: userText() }).loose()).min(1)])
  .transform((value) => (typeof value === 'string' ? value : value.map((part) => part.text).join('\n')))
  .pipe(z.string().max(MAX_EDIT_CHARS, `must be at most ${MAX_EDIT_CHARS} characters`));

/**
 * `POST /v1/chat/completions` as Echoloop takes it: OpenAI's body (unknown fields pass, as OpenAI-compatible
 * servers accept them), the same input policy as every route, and the conversation's id in
 * `metadata.conversation_id` when the client names one. Sampling fields are the checkpoint's: they are accepted
 * and not applied, so that every reply of an experiment's arm is sampled alike.
 */
export const clientCompletionSchema = (maxMessageChars: number) =>
  z
    .looseObject({
      model: userText().trim().min(1).max(200),
      messages: z
        .array(z.looseObject({ role: z.enum(CHAT_ROLES), content, name: userText().max(100).optional() }))
        .min(1)
        .max(2_000),
      stream: z.boolean().nullish(),
      stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
      n: z.literal(1, { message: 'only n=1 is supported' }).nullish(),
      metadata: z.looseObject({ conversation_id: z.uuid().optional() }).nullish(),
      user: userText().max(256).nullish(),
    })
    .superRefine((body, ctx) => {
      const last = body.messages.at(-1);
      if (last && last.content.length > maxMessageChars) {
        ctx.addIssue({
          code: 'custom',
          path: ['messages', body.messages.length - 1, 'content'],
          message: `must be at most ${maxMessageChars} characters`,
        });
      }
      if (body.stream !== true && body.stream_options != null) {
        ctx.addIssue({
          code: 'custom',
          path: ['stream_options'],
          message: 'Stream options can only be defined when `stream=True`.',
        });
      }
    });

export type ClientCompletion = z.infer<ReturnType<typeof clientCompletionSchema>>;
