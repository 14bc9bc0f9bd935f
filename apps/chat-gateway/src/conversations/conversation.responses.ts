import { z } from 'zod';

/** What the conversation routes answer, for the OpenAPI document (the service builds these objects). */
export const messageResponse = z.object({
  id: z.uuid(),
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
  status: z.enum(['streaming', 'complete', 'cancelled', 'error']),
  selected: z.boolean(),
  parentId: z.uuid().nullable(),
  finishReason: z.string().nullable(),
  usage: z
    .object({ promptTokens: z.number().int(), completionTokens: z.number().int().nullable() })
    .nullable(),
  checkpointId: z.string().nullable(),
  createdAt: z.iso.datetime(),
  edited: z
    .object({
      originalContent: z.string().describe("The model's own text; `content` is the edited one"),
      editedAt: z.iso.datetime(),
    })
    .nullable()
    .describe('Set on a reply the user edited'),
});

export const conversationCreatedResponse = z.object({
  id: z.uuid(),
  characterId: z.uuid(),
  title: z.string(),
  createdAt: z.iso.datetime(),
  greeting: messageResponse,
  greetingCount: z.number().int(),
});

export const conversationListResponse = z.object({
  items: z.array(
    z.object({ id: z.uuid(), characterId: z.uuid(), title: z.string(), updatedAt: z.iso.datetime() }),
  ),
});

/** Your own rating of a reply, as you gave it; null when you gave none. */
const yourFeedback = z
  .object({ thumb: z.enum(['up', 'down']).nullable(), stars: z.number().int().min(1).max(5).nullable() })
  .nullable();

export const messagePageResponse = z.object({
  items: z.array(messageResponse.extend({ feedback: yourFeedback })),
  nextBefore: z.uuid().nullable().describe('Pass as `before` for the previous page; null on the first one'),
});
