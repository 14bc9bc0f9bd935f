import type { ReactNode } from 'react';
import { navigate } from '../../router';

/** A failed call's sentence, announced as it appears. */
export function ErrorNote({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" className="error">
      {error}
    </p>
  ) : null;
}

/** A number in a few significant digits; a dash when there is none. */
export function num(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

/** A rate in [0, 1] as a percentage. */
export const pct = (value: unknown): string =>
  typeof value === 'number' && Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : '–';

/** A time in the reader's locale; a dash when there is none. */
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '–');

export const shortId = (id: string): string => id.slice(0, 8);

/** A status word as a badge (`.status status-<word>`). */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`status status-badge status-${status}`}>{status}</span>;
}

/** An in-app link: a real address (new tab, copy) that navigates without a reload. */
export function AppLink({ to, children, label }: { to: string; children: ReactNode; label?: string }) {
  return (
    <a
      href={to}
      aria-label={label}
      onClick={(event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

/** An object's plain fields (numbers, strings, booleans) as rows of a key/value table. */
export function scalarEntries(value: Record<string, unknown> | null | undefined): [string, string][] {
  return Object.entries(value ?? {}).flatMap(([key, v]): [string, string][] =>
    typeof v === 'number'
      ? [[key, num(v)]]
      : typeof v === 'string' || typeof v === 'boolean'
        ? [[key, String(v)]]
        : [],
  );
}
