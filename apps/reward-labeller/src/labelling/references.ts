import type { TurnSignals } from '@echoloop/persistence';
import { statedScore } from '@echoloop/rewards';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

/** Where a reference reply came from: the user's edit of the reply, the alternative they kept, one they rated higher. */
export type ReferenceSource = 'edit' | 'kept' | 'rated';

export interface EmpathyReference {
  source: ReferenceSource;
  /** The turn whose reply (or edit of it) is the reference. */
  turnId: string;
  text: string;
}

/** One alternative of a user message, as the references are chosen among them. */
export interface Alternative {
  turnId: string;
  signals: TurnSignals;
  /** The model's reply. */
  reply: string;
}

/** An alternative as the user last saw it: their edit of it, else the model's reply. */
const shown = (a: Alternative) => a.signals.edit?.content ?? a.reply;

/**
 * The reference Echo-N1's empathy judge compares a reply with, strongest evidence first: the user's own edit of it;
 * the alternative they kept over it (as they left it); the alternative they rated highest, when it is rated higher
 * than this one. Null when the user has said nothing that makes one.
 */
export function referenceFor(
  turn: Alternative,
  alternatives: readonly Alternative[],
): EmpathyReference | null {
  const own = turn.signals.edit?.content;
  if (own) return { source: 'edit', turnId: turn.turnId, text: own };
  const others = alternatives.filter((a) => a.turnId !== turn.turnId);
  const kept = turn.signals.kept === false ? others.find((a) => a.signals.kept === true) : undefined;
  if (kept) return { source: 'kept', turnId: kept.turnId, text: shown(kept) };
  const mine = statedScore(turn.signals);
  if (mine === null) return null;
  let best: { alternative: Alternative; score: number } | undefined;
  for (const alternative of others) {
    const score = statedScore(alternative.signals) ?? -Infinity;
    if (score > mine && score > (best?.score ?? -Infinity)) best = { alternative, score };
  }
  return best ? { source: 'rated', turnId: best.alternative.turnId, text: shown(best.alternative) } : null;
}

/** What a label records of its reference: enough to tell whether the reference has changed since (not the text). */
export interface ReferenceNote {
  source: ReferenceSource;
  turnId: string;
  sha256: string;
}

export const referenceNote = (reference: EmpathyReference | null): ReferenceNote | null =>
  reference && {
    source: reference.source,
    turnId: reference.turnId,
    sha256: createHash('sha256').update(reference.text).digest('hex'),
  };

/** Whether a label judged with `stored` (its details' `reference`) was judged against this reference. */
export const sameReference = (stored: unknown, reference: EmpathyReference | null): boolean =>
  isDeepStrictEqual(stored ?? null, referenceNote(reference));
