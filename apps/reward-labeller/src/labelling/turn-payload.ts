import type { chatTurnCompletedV1, PayloadOf } from '@echoloop/contracts';

/** A completed turn as the labeller receives it (chat.turn.completed.v1's payload). */
export type TurnPayload = PayloadOf<typeof chatTurnCompletedV1>;
