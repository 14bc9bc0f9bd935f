import { type Line, sameText } from './client-history';

/** A line of a stored conversation as a client would have been shown it: the kept reply of each message. */
export interface StoredLine extends Line {
  id: string;
  clientMessageId: string | null;
  /** For a reply: every complete reply to the same message (its swipes), the kept one included. */
  alternatives: { id: string; content: string }[];
}

/** What a client's request does to a stored conversation whose transcript it matches. */
export type ThreadMove =
  /** The history is the transcript: the message is the next turn (after keeping the swipe shown, or the edit). */
  | { kind: 'send'; select?: string; edit?: { replyId: string; content: string } }
  /** The message is stored and has no kept reply (it failed or still streams): answered again, never twice. */
  | { kind: 'resend'; clientMessageId: string }
  /** The history is an earlier request's minus its answer: a new alternative (a swipe) of that answer. */
  | { kind: 'regenerate'; replyId: string };

/**
 * How the client's `earlier` lines and new `message` continue `stored`, or null when they are another
 * conversation. The last earlier line may be a swipe the client kept, or a reply the client edited.
 */
export function matchThread(
  stored: readonly StoredLine[],
  earlier: readonly Line[],
  message: string,
): ThreadMove | null {
  const n = earlier.length;
  if (stored.length < n) return null;
  for (let i = 0; i < n - 1; i++) if (!sameLine(stored[i], earlier[i])) return null;
  const next = stored[n];
  const after = stored[n + 1];
  if (stored.length === n) return n === 0 ? { kind: 'send' } : continuing(stored[n - 1], earlier[n - 1]);
  if (n > 0 && !sameLine(stored[n - 1], earlier[n - 1])) return null;
  if (next?.role !== 'user' || !sameText(next.content, message)) return null;
  if (stored.length === n + 1)
    return next.clientMessageId ? { kind: 'resend', clientMessageId: next.clientMessageId } : null;
  if (stored.length === n + 2 && after?.role === 'assistant')
    return { kind: 'regenerate', replyId: after.id };
  return null;
}

/** The transcript's last line against the client's: the same, a swipe the client kept, or the client's edit. */
function continuing(last: StoredLine | undefined, theirs: Line | undefined): ThreadMove | null {
  if (!last || !theirs || last.role !== theirs.role) return null;
  // Going on from a reply that has swipes keeps it: the client's choice, as a swipe kept in the web app.
  if (sameText(last.content, theirs.content)) {
    return last.alternatives.length > 1 ? { kind: 'send', select: last.id } : { kind: 'send' };
  }
  if (last.role !== 'assistant') return null;
  const swipe = last.alternatives.find((a) => sameText(a.content, theirs.content));
  if (swipe) return { kind: 'send', select: swipe.id };
  return { kind: 'send', edit: { replyId: last.id, content: theirs.content } };
}

const sameLine = (a: StoredLine | undefined, b: Line | undefined): boolean =>
  a !== undefined && b !== undefined && a.role === b.role && sameText(a.content, b.content);
