import type { TurnSignals } from '@echoloop/persistence';
import type { ImplicitSignals } from '@echoloop/rewards';

/** What the labeller heard about a turn, as the implicit reward reads it. */
export function implicitSignals(stored: TurnSignals, repliedAt: Date, ended: boolean): ImplicitSignals {
  const next = stored.nextUserMessage;
  return {
    regenerated: stored.regenerated === true,
    kept: stored.kept ?? null,
    thumbs: stored.thumbs ?? null,
    stars: isStars(stored.stars) ? stored.stars : null,
    edited: !!stored.edit,
    nextMessageLatencyMs: next ? Math.max(0, Date.parse(next.createdAt) - repliedAt.getTime()) : null,
    nextMessageChars: next ? next.content.length : null,
    continued: next ? true : ended ? false : null,
    returned: stored.returned === true,
  };
}

const isStars = (value: unknown): value is 1 | 2 | 3 | 4 | 5 =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 5;

/** A v1 `rating` as the signals it meant: -1 / 1 thumbs (as v1 documented), 2-5 stars. */
export function legacyRatingSignals(rating: number | null): TurnSignals {
  if (rating === null) return {};
  if (rating === -1 || rating === 1) return { thumbs: rating };
  return isStars(rating) ? { stars: rating } : {};
}

/**
 * The signals a chat.feedback.v2 rating sets: the user's whole current feedback (thumb, stars, tags, comment), so
 * applying it twice is once.
 */
export function feedbackSignals(feedback: {
  thumb: 'up' | 'down' | null;
  stars: number | null;
  tags: string[];
  comment: string | null;
}): TurnSignals {
  return {
    thumbs: feedback.thumb === null ? null : feedback.thumb === 'up' ? 1 : -1,
    stars: isStars(feedback.stars) ? feedback.stars : null,
    tags: [...new Set(feedback.tags)],
    comment: feedback.comment || null,
  };
}

/** The signals a chat.feedback.v2 edit sets: the current edit, or none when it was taken back. */
export function editSignals(edit: { content: string | null; editedAt: string | null }): TurnSignals {
  return {
    edit:
      edit.content === null || edit.editedAt === null
        ? null
        : { content: edit.content, editedAt: edit.editedAt },
  };
}
