/**
 * Deterministic stand-in for a real tokenizer: each token is a run of non-space characters with the
 * whitespace before it ("Hi there!" -> ["Hi", " there!"]); trailing whitespace is a token of its own.
 * Joining the tokens gives the text back.
 */
export function splitIntoTokens(text: string): string[] {
  return text.match(/\s*\S+|\s+/g) ?? [];
}

/** Like a ChatML template: `<|im_start|>` + role + `\n` ... `<|im_end|>` + `\n` around each message. */
export const TEMPLATE_TOKENS_PER_MESSAGE = 4;
/** The `<|im_start|>assistant\n` the template appends so the model answers. */
export const TEMPLATE_TOKENS_FOR_REPLY = 3;

export function countPromptTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (total, message) => total + TEMPLATE_TOKENS_PER_MESSAGE + splitIntoTokens(message.content).length,
    TEMPLATE_TOKENS_FOR_REPLY,
  );
}
import type { ChatMessage } from '@echoloop/vocabulary';
