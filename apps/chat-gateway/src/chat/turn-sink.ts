import type { TurnReply } from '@echoloop/vocabulary';

/** Where a streaming turn reports to: a socket.io client, an SSE response, or a JSON response. */
export interface TurnSink {
  /** Identifies the client (a socket id), so a client resuming twice is one sink. */
  key?: string;
  delta(event: { conversationId: string; replyId: string; index: number; delta: string }): void;
  done(event: TurnDone): void;
  error(event: TurnFailure): void;
}

export type TurnDone = TurnReply;

export interface TurnFailure {
  conversationId: string;
  replyId?: string;
  code: string;
  message: string;
  retryable: boolean;
}
