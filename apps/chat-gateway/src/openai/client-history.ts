import { createHash } from 'node:crypto';
import type { ChatMessage } from '@echoloop/vocabulary';
import { BadRequestException } from '@nestjs/common';

/** A line of the dialogue a client sends (its system messages apart). */
export interface Line {
  role: 'user' | 'assistant';
  content: string;
}

/** A client's request as the conversation sees it: its system prompt, what came before, and the new message. */
export interface ClientHistory {
  /** The names the client gives the user's and the character's messages (OpenAI's `name`), the latest of each. */
  speakers: { user?: string; character?: string };
  /** The client's system messages, joined; null when it sent none (the character's own definition is used). */
  system: string | null;
  /** The dialogue before the new message, oldest first; consecutive lines of one role are one line. */
  earlier: Line[];
  /** The new user message. */
  message: string;
}

/**
 * Reads a client's messages: system messages (wherever they stand) are its prompt; the rest is the dialogue, which
 * must end with the user's message. Runs of one role are joined, as the model would read them.
 */
export function readClientHistory(
  messages: readonly (ChatMessage & { name?: string | undefined })[],
): ClientHistory {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content);
  const dialogue: Line[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const last = dialogue.at(-1);
    if (last?.role === m.role) last.content = `${last.content}\n\n${m.content}`;
    else dialogue.push({ role: m.role, content: m.content });
  }
  const last = dialogue.pop();
  if (!last || last.role !== 'user' || !last.content.trim()) {
    throw new BadRequestException({
      error: {
        code: 'validation_failed',
        message: "The last message must be the user's, with text: it is what the character answers",
        details: [{ path: 'messages', message: 'must end with a user message' }],
      },
    });
  }
  const nameOf = (role: Line['role']) =>
    messages.findLast((m) => m.role === role && m.name?.trim())?.name?.trim();
  const user = nameOf('user');
  const character = nameOf('assistant');
  return {
    system: system.length ? system.join('\n\n') : null,
    earlier: dialogue,
    message: last.content,
    speakers: { ...(user && { user }), ...(character && { character }) },
  };
}

/**
 * Which of the user's conversations a resent history may continue: the character, the client's system prompt and
 * the dialogue up to its first user message. A history resent whole keeps this key; the stored transcript decides
 * among conversations that share it.
 */
export function threadKey(characterId: string, history: ClientHistory): string {
  const firstUser = [...history.earlier, { role: 'user', content: history.message }].findIndex(
    (line) => line.role === 'user',
  );
  const opening = [...history.earlier, { role: 'user' as const, content: history.message }]
    .slice(0, firstUser + 1)
    .map((line) => [line.role, normal(line.content)]);
  return createHash('sha256')
    .update(JSON.stringify([characterId, normal(history.system ?? ''), opening]))
    .digest('hex');
}

/**
 * The id a client's message is stored under: its place among the user's messages and its text, so a request the
 * client sends again (a retry) is the same message, never a second turn.
 */
export function clientMessageId(history: ClientHistory): string {
  const place = history.earlier.filter((line) => line.role === 'user').length + 1;
  const digest = createHash('sha256').update(normal(history.message)).digest('hex').slice(0, 24);
  return `openai:${place}:${digest}`;
}

/** Clients trim what they show and resend: two texts are the same line when they differ only at their ends. */
export const sameText = (a: string, b: string): boolean => normal(a) === normal(b);

const normal = (text: string): string => text.trim();
