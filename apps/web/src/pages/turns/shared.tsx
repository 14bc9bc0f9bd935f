import { useEffect, useState } from 'react';
import { api } from '../../api/client';
import type { paths } from '../../api/gateway';

/** One labelled turn as `GET /v1/turns` gives it (pseudonymous user, PII redacted). */
export type TurnRecord =
  paths['/v1/turns']['get']['responses'][200]['content']['application/json']['items'][number];

export type RewardComponent = keyof TurnRecord['rewards'];

/** The reward components, in the order tables show them. */
export const COMPONENTS: readonly { key: RewardComponent; label: string }[] = [
  { key: 'empathy', label: 'Empathy' },
  { key: 'humanlike', label: 'Humanlike' },
  { key: 'live_emotion', label: 'Live emotion' },
  { key: 'implicit', label: 'Implicit' },
];

/** A number in a few significant digits; a dash when there is none. */
export function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

/** A signed change: "+0.2", "-0.1", "0". */
export function fmtDelta(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  return value > 0 ? `+${fmt(value)}` : fmt(value);
}

export const fmtTime = (iso: string, dateStyle: 'medium' | 'short' = 'medium') =>
  new Date(iso).toLocaleString(undefined, { dateStyle, timeStyle: 'short' });

/** The text cut to about `max` characters at a word boundary. */
export function clip(text: string, max = 80): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

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

export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}

/** Character names by id (for tables and the character filter); empty until loaded. */
export function useCharacters(): { id: string; name: string }[] {
  const [characters, setCharacters] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    let active = true;
    void api.GET('/v1/characters').then(({ data }) => {
      if (active && data) setCharacters(data.items.map((c) => ({ id: c.id, name: c.name })));
    });
    return () => {
      active = false;
    };
  }, []);
  return characters;
}

/** `window.location.search`, kept current across `navigate` and the back button. */
export function useSearch(): string {
  const [search, setSearch] = useState(() => window.location.search);
  useEffect(() => {
    const update = () => setSearch(window.location.search);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  return search;
}

let listAddress = '/turns';
/** Remembers the list's filters (its query string), for the way back from a conversation. */
export const rememberTurnList = (search: string) => {
  listAddress = `/turns${search}`;
};
export const turnListAddress = () => listAddress;
