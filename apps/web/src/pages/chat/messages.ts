import type { Reply } from '../../api/client';

type StoredMessage = Reply<'get', '/v1/conversations/{id}/messages'>['items'][number];

export interface Message {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  state: 'streaming' | 'complete' | 'cancelled' | 'error';
  /** The user message a reply answers: a reply's alternatives (swipes) share it. */
  parentId?: string | null;
  /** The alternative the user keeps (later turns see only it). */
  selected?: boolean;
  error?: string;
  thumb?: 'up' | 'down' | null;
  stars?: number | null;
  /** The model's own text of a reply the user edited (`content` is theirs); null when never edited. */
  originalContent?: string | null;
}

/** One entry of the conversation: a message, and for a reply all the alternatives of its user message. */
export interface Shown {
  message: Message;
  alternatives: Message[];
}

/** Every message but system turns, alternatives and the user's own ratings included. */
export function fromStored(stored: StoredMessage[]): Message[] {
  return stored
    .filter((m) => m.role !== 'system')
    .map((m) => ({
      id: m.id,
      role: m.role === 'user' ? 'user' : 'assistant',
      content: m.content,
      state: m.status,
      parentId: m.parentId,
      selected: m.selected,
      thumb: m.feedback?.thumb ?? null,
      stars: m.feedback?.stars ?? null,
      originalContent: m.edited?.originalContent ?? null,
    }));
}

/**
 * What the conversation shows: each reply's group of alternatives in the place of its first one, showing the
 * one being browsed, else the kept one, else the newest.
 */
export function visibleMessages(all: Message[], browsing: ReadonlyMap<string, string>): Shown[] {
  const groups = new Map<string, Message[]>();
  for (const m of all) {
    if (m.role !== 'assistant' || !m.parentId) continue;
    const group = groups.get(m.parentId);
    if (group) group.push(m);
    else groups.set(m.parentId, [m]);
  }
  const shown: Shown[] = [];
  for (const m of all) {
    const alternatives = m.role === 'assistant' && m.parentId ? groups.get(m.parentId) : undefined;
    if (!alternatives || !m.parentId) {
      shown.push({ message: m, alternatives: [m] });
      continue;
    }
    if (alternatives[0] !== m) continue;
    const browsed = browsing.get(m.parentId);
    const pick =
      alternatives.find((a) => a.id === browsed) ??
      alternatives.find((a) => a.selected) ??
      alternatives[alternatives.length - 1] ??
      m;
    shown.push({ message: pick, alternatives });
  }
  return shown;
}

/**
 * A streaming reply's text by delta index, so deltas that arrive twice, late or around a resume's snapshot
 * (the text of deltas 0..index at once) still add up to the reply exactly once.
 */
export class StreamedText {
  private readonly parts: string[] = [];

  delta(index: number, delta: string): string {
    this.parts[index] = delta;
    return this.text();
  }

  snapshot(index: number, content: string): string {
    for (let i = 0; i <= index; i++) this.parts[i] = i === 0 ? content : '';
    return this.text();
  }

  private text(): string {
    return this.parts.join('');
  }
}
