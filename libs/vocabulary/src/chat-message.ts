/** Who says a message, in the OpenAI chat format every model server here speaks. */
export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

/** One message of a chat, as OpenAI-compatible endpoints take it. */
export interface ChatMessage {
  role: ChatRole;
  content: string;
}
