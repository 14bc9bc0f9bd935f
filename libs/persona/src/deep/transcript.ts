import { DEEP_WINDOW_USER_MESSAGES } from './extraction-schema';

/** One message of the conversation an extraction reads. */
export interface ChatTurnText {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  createdAt: Date;
}

const MAX_MESSAGE_CHARS = 1_200;

/**
 * The newest messages holding at most DEEP_WINDOW_USER_MESSAGES user messages, oldest first, starting at a user
 * message: the window one extraction reads.
 */
export function extractionWindow(messages: readonly ChatTurnText[]): ChatTurnText[] {
  let users = 0;
  let start = messages.length;
  while (start > 0 && users < DEEP_WINDOW_USER_MESSAGES) {
    start -= 1;
    if (messages[start]?.role === 'user') users += 1;
  }
  while (start < messages.length && messages[start]?.role !== 'user') start += 1;
  return messages.slice(start);
}

/** The user messages of a window, in the order the transcript numbers them (1-based). */
export function userMessagesOf(window: readonly ChatTurnText[]): ChatTurnText[] {
  return window.filter((message) => message.role === 'user');
}

/** `[n] User: ...` for user messages, `Companion: ...` for replies; long messages are cut. */
export function numberedTranscript(window: readonly ChatTurnText[]): string {
  let n = 0;
  return window
    .map((message) => {
      const text =
        message.content.length > MAX_MESSAGE_CHARS
          ? `${message.content.slice(0, MAX_MESSAGE_CHARS)}…`
          : message.content;
      return message.role === 'user' ? `[${++n}] User: ${text}` : `Companion: ${text}`;
    })
    .join('\n');
}
