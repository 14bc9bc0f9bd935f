import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';

const role = z.enum(['system', 'user', 'assistant']);

const storedMessage = z.object({
  id: z.uuid(),
  content: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
});

/**
 * A completed chat turn: the user's message and the reply, with what the reward labeller needs to score it
 * without reading the database (history window, persona snapshot, serving checkpoint, experiment arm).
 * Key: conversationId, so one conversation's turns stay in order.
 */
export const chatTurnCompletedV1 = defineContract(
  TOPICS.chatTurnCompleted,
  1,
  z.object({
    turnId: z.uuid(),
    conversationId: z.uuid(),
    userId: z.uuid(),
    characterId: z.uuid(),
    checkpointId: z.string().min(1),
    experimentId: z.uuid().nullable(),
    armId: z.string().min(1).nullable(),
    userMessage: storedMessage,
    assistantMessage: storedMessage.extend({
      /** Hidden reasoning from `<think>` blocks: stored for training, never shown to the user. */
      reasoning: z.string().nullable(),
      finishReason: z.enum(['stop', 'length', 'cancelled', 'error']),
      usage: z.object({
        promptTokens: z.number().int().nonnegative(),
        completionTokens: z.number().int().nonnegative(),
      }),
    }),
    /** The turns before this one, oldest first, as the model saw them. */
    history: z.array(z.object({ role, content: z.string() })),
    personaSnapshot: z.record(z.string(), z.unknown()),
    timings: z.object({
      ttftMs: z.number().nonnegative(),
      totalMs: z.number().nonnegative(),
    }),
    safety: z.object({
      flagged: z.boolean(),
      categories: z.array(z.string()),
    }),
  }),
);
