import { z } from 'zod';

/** A finished reply: the socket's `message:done`, an SSE stream's last event, the JSON answer's `reply`. */
export const turnReply = z.object({
  conversationId: z.uuid(),
  replyId: z.uuid(),
  content: z.string(),
  finishReason: z.enum(['stop', 'length', 'cancelled']),
  usage: z.object({ promptTokens: z.number().int(), completionTokens: z.number().int() }),
  latencyMs: z.object({ ttft: z.number(), total: z.number() }),
  checkpointId: z.string(),
});
export type TurnReply = z.infer<typeof turnReply>;

/** A turn over HTTP without `Accept: text/event-stream`: the stored message's id, and the reply once complete. */
export const turnResult = z.object({ userMessageId: z.uuid(), replyId: z.uuid(), reply: turnReply });
export type TurnResult = z.infer<typeof turnResult>;
