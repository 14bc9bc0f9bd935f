import { CHAT_ROLES, type ChatMessage } from '@echoloop/vocabulary';
import { z } from 'zod';

export const chatRoleSchema = z.enum(CHAT_ROLES);

export const chatMessageSchema = z.object({
  role: chatRoleSchema,
  content: z.string(),
}) satisfies z.ZodType<ChatMessage>;

export const streamOptionsSchema = z.object({
  include_usage: z.boolean().optional(),
});

/** vLLM's `response_format`: plain text, any JSON object, or JSON that a schema guides (guided decoding). */
export const responseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);
export type ResponseFormat = z.infer<typeof responseFormatSchema>;

const chatCompletionFields = {
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  stream: z.boolean().optional(),
  stream_options: streamOptionsSchema.nullish(),
  max_tokens: z.int().min(1).nullish(),
  max_completion_tokens: z.int().min(1).nullish(),
  temperature: z.number().min(0).nullish(),
  top_p: z.number().gt(0).max(1).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  n: z.literal(1, { message: 'only n=1 is supported' }).nullish(),
  seed: z.int().nullish(),
  response_format: responseFormatSchema.nullish(),
};

/**
 * Body of `POST /v1/chat/completions`. Unknown fields pass through untouched, as vLLM accepts
 * (and ignores) fields it does not know.
 */
export const chatCompletionRequestSchema = z
  .looseObject(chatCompletionFields)
  .refine((body) => body.stream === true || body.stream_options == null, {
    // vLLM rejects the same combination with a 400.
    message: 'Stream options can only be defined when `stream=True`.',
    path: ['stream_options'],
  });
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

/**
 * Body of vLLM's `POST /v1/chat/completions/batch`: the same fields, but `messages` is a list of conversations, each
 * answered on its own (choice `i` for conversation `i`). vLLM refuses streaming here.
 */
export const batchChatCompletionRequestSchema = z
  .looseObject({
    ...chatCompletionFields,
    messages: z.array(z.array(chatMessageSchema).min(1)).min(1),
  })
  .refine((body) => body.stream !== true, {
    message: 'Streaming is not supported for batch chat completions.',
    path: ['stream'],
  });
export type BatchChatCompletionRequest = z.infer<typeof batchChatCompletionRequestSchema>;

/** Conversation `index` of a batch as the single request it stands for. */
export function batchConversation(batch: BatchChatCompletionRequest, index: number): ChatCompletionRequest {
  return { ...batch, messages: batch.messages[index] ?? [], stream: false };
}

/** `max_completion_tokens` wins over the deprecated `max_tokens`, as in vLLM. */
export function requestedMaxTokens(request: ChatCompletionRequest): number | undefined {
  return request.max_completion_tokens ?? request.max_tokens ?? undefined;
}

export function stopSequences(request: ChatCompletionRequest): string[] {
  const { stop } = request;
  if (stop == null) return [];
  return (typeof stop === 'string' ? [stop] : stop).filter((sequence) => sequence.length > 0);
}

export function wantsUsageChunk(request: ChatCompletionRequest): boolean {
  // vLLM defaults include_usage to true once stream_options is present at all.
  return (
    request.stream === true &&
    request.stream_options != null &&
    request.stream_options.include_usage !== false
  );
}
