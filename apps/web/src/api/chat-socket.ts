import { io, type Socket } from 'socket.io-client';
import { refreshSession } from './client';
import { loadTokens } from './session';

/** The socket.io events of the gateway's `/chat` namespace (README "Public API", `x-socket-events`). */
export interface TurnAck {
  userMessageId: string;
  replyId: string;
}
export type AckOrError = TurnAck | { error: { code: string; message: string } };
/** A reply still streaming when a client resumes: the text of its deltas up to `index`. */
export interface ReplyInProgress {
  replyId: string;
  userMessageId: string;
  index: number;
  content: string;
}
export interface DeltaEvent {
  conversationId: string;
  replyId: string;
  index: number;
  delta: string;
}
export interface DoneEvent {
  conversationId: string;
  replyId: string;
  content: string;
  finishReason: 'stop' | 'length' | 'cancelled';
}
export interface ErrorEvent {
  conversationId?: string;
  replyId?: string;
  code: string;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
}

interface ServerEvents {
  'message:delta': (event: DeltaEvent) => void;
  'message:done': (event: DoneEvent) => void;
  'message:error': (event: ErrorEvent) => void;
  'session:ended': (event: { code: string; message: string }) => void;
}
interface ClientEvents {
  'message:send': (
    payload: { conversationId: string; content: string; clientMessageId: string },
    ack: (result: AckOrError) => void,
  ) => void;
  'message:regenerate': (payload: { replyId: string }, ack: (result: AckOrError) => void) => void;
  'message:stop': (payload: { replyId: string }, ack: (result: { stopped: boolean }) => void) => void;
  'message:resume': (
    payload: { conversationId: string },
    ack: (result: { replies: ReplyInProgress[] } | { error: { code: string; message: string } }) => void,
  ) => void;
}

export type ChatSocket = Socket<ServerEvents, ClientEvents>;

/**
 * Connects to `/chat` with the current access token (read again on every reconnect); a rejected token is
 * refreshed once and the connection retried.
 */
export function connectChat(): ChatSocket {
  const socket: ChatSocket = io('/chat', {
    auth: (cb) => cb({ token: loadTokens()?.accessToken ?? '' }),
    transports: ['websocket'],
  });
  let refreshed = false;
  socket.on('connect', () => (refreshed = false));
  socket.on('connect_error', () => {
    if (refreshed || socket.active) return;
    refreshed = true;
    void refreshSession().then((ok) => ok && socket.connect());
  });
  return socket;
}
