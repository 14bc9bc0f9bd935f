import { userText } from '@echoloop/platform';
import { z } from 'zod';

export const openSessionSchema = z
  .object({
    profileId: userText().min(1).max(200),
    /** RLVER trains from 30 (the default here); SAGE evaluates from 40. */
    startScore: z.number().int().min(10).max(99).optional(),
    maxTurns: z.number().int().min(1).max(45).optional(),
  })
  .strict();
export type OpenSessionInput = z.infer<typeof openSessionSchema>;

export const replySchema = z
  .object({
    /** The policy's reply as generated; think text is stripped before the simulated user reads it. */
    reply: z.string().min(1).max(32_000),
    /**
     * The turn this reply is for (1 = the reply to the opener). With it a retried request is safe: the same reply
     * for the last turn taken gets that turn's answer again instead of a second turn.
     */
    turn: z.number().int().min(1).optional(),
  })
  .strict();
export type ReplyInput = z.infer<typeof replySchema>;
