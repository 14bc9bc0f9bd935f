/**
 * Structurally the same as ChatMessage of @echoloop/openai-compat, which a `type:util` lib may not import; either
 * type can be passed where the other is expected.
 */
export type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };
