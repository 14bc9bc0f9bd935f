import type { Reply } from '../../api/client';

/** One labelled turn as `GET /v1/turns` gives it (pseudonymous user, PII redacted). */
export type TurnRecord = Reply<'get', '/v1/turns'>['items'][number];

export type RewardComponent = keyof TurnRecord['rewards'];

/** The reward components, in the order tables show them. */
export const COMPONENTS: readonly { key: RewardComponent; label: string }[] = [
  { key: 'empathy', label: 'Empathy' },
  { key: 'humanlike', label: 'Humanlike' },
  { key: 'live_emotion', label: 'Live emotion' },
  { key: 'implicit', label: 'Implicit' },
];

/** The user message the turn answers: the last user message of its context. */
export const userMessageOf = (turn: TurnRecord): string =>
  turn.context.findLast((m) => m.role === 'user')?.content ?? '';

/** Thumb and stars as words a screen reader reads well. */
export function feedbackText(feedback: TurnRecord['feedback']): string {
  const parts = [
    feedback.thumbs === 1 ? 'thumb up' : feedback.thumbs === -1 ? 'thumb down' : null,
    feedback.stars !== null ? `★ ${feedback.stars}/5` : null,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' · ') : '–';
}

let listAddress = '/turns';
/** Remembers the list's filters (its query string), for the way back from a conversation. */
export const rememberTurnList = (search: string) => {
  listAddress = `/turns${search}`;
};
export const turnListAddress = () => listAddress;
