import type { TurnSignals } from '@echoloop/persistence';
import type { ImplicitSignals } from '@echoloop/rewards';

/** What the labeller heard about a turn, as the implicit reward reads it. */
export function implicitSignals(stored: TurnSignals, repliedAt: Date, ended: boolean): ImplicitSignals {
  const next = stored.nextUserMessage;
  const rating = stored.rating ?? null;
  return {
    regenerated: stored.regenerated === true,
    kept: stored.kept ?? null,
    thumbs: rating === -1 || rating === 1 ? rating : null,
    rating: rating !== null && rating >= 2 && rating <= 5 ? (rating as 2 | 3 | 4 | 5) : null,
    // Replies cannot be edited in the product yet.
    edited: false,
    nextMessageLatencyMs: next ? Math.max(0, Date.parse(next.createdAt) - repliedAt.getTime()) : null,
    nextMessageChars: next ? next.content.length : null,
    continued: next ? true : ended ? false : null,
  };
}
