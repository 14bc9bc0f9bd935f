/** A number in a few significant digits; a dash when there is none. */
export function fmt(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
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
