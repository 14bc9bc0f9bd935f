/** A number in a few significant digits; a dash when there is none (or it is not a number). */
export function fmt(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  if (value === 0) return '0';
  return Math.abs(value) >= 1000 ? value.toFixed(0) : String(Number(value.toPrecision(3)));
}

/** A confidence interval from the API: a pair (the typed client sees a JSON array). */
export const asInterval = (ci: readonly (number | null)[]): [number, number] => [
  ci[0] ?? Number.NaN,
  ci[1] ?? Number.NaN,
];

export const fmtInterval = (ci: readonly (number | null)[] | null) =>
  ci ? `[${fmt(ci[0])}, ${fmt(ci[1])}]` : '–';

/** "live_emotion_delta" → "Live emotion delta". */
export const metricLabel = (name: string) => {
  const words = name.replace(/_/g, ' ').replace('ttft ms', 'time to first token (ms)');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** A signed change: "+0.2", "-0.1", "0". */
export const fmtDelta = (value: number | null | undefined): string =>
  typeof value === 'number' && value > 0 ? `+${fmt(value)}` : fmt(value);

/** A rate in [0, 1] as a percentage. */
export const pct = (value: unknown): string =>
  typeof value === 'number' && Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : '–';

/** A time in the reader's locale; a dash when there is none. */
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '–');

/** A date and time, shorter than `when` (tables). */
export const fmtTime = (iso: string, dateStyle: 'medium' | 'short' = 'medium') =>
  new Date(iso).toLocaleString(undefined, { dateStyle, timeStyle: 'short' });

export const shortId = (id: string): string => id.slice(0, 8);

/** The text cut to about `max` characters at a word boundary. */
export function clip(text: string, max = 80): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
