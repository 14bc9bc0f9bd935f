import type { GatewayOperations as operations } from '@echoloop/vocabulary';

/** The dataset filters `GET /v1/turns` and exports share (libs/datasets `datasetFilters`). */
export type TurnQuery = NonNullable<operations['TurnsController_list']['parameters']['query']>;
export type TurnFilters = Omit<TurnQuery, 'cursor' | 'limit'>;
type FilterKey = keyof TurnFilters;

/** Every filter the address may carry, and whether it is a number; anything else in the query is ignored. */
const KEYS: Record<FilterKey, 'text' | 'number'> = {
  from: 'text',
  to: 'text',
  characterId: 'text',
  conversationId: 'text',
  checkpointId: 'text',
  experimentId: 'text',
  armId: 'text',
  labellerVersion: 'text',
  empathyMin: 'number',
  empathyMax: 'number',
  humanlikeMin: 'number',
  humanlikeMax: 'number',
  liveEmotionMin: 'number',
  liveEmotionMax: 'number',
  implicitMin: 'number',
  implicitMax: 'number',
  liveEmotionDeltaMin: 'number',
  liveEmotionDeltaMax: 'number',
  thumb: 'text',
  starsMin: 'number',
  starsMax: 'number',
  trait: 'text',
  language: 'text',
  labelStatus: 'text',
  tag: 'text',
  hasComment: 'text',
  population: 'text',
};
const FILTER_KEYS = Object.keys(KEYS) as FilterKey[];

/** Filters as the form and the address hold them: text, empty meaning unset. */
export type FilterValues = Partial<Record<FilterKey, string>>;

/** The filters in an address query string (`?characterId=…&empathyMin=0.5`). */
export function parseFilters(search: string): FilterValues {
  const params = new URLSearchParams(search);
  const values: FilterValues = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value) values[key] = value;
  }
  return values;
}

/** The query string of these filters, in a stable order, without the unset ones ('' when none). */
export function filterSearch(values: FilterValues): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = values[key]?.trim();
    if (value) params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The filters as the API takes them (numbers as numbers); the gateway validates them. */
export function toApiFilters(values: FilterValues): TurnFilters {
  const filters: Record<string, string | number> = {};
  for (const key of FILTER_KEYS) {
    const value = values[key]?.trim();
    if (!value) continue;
    filters[key] = KEYS[key] === 'number' && Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return filters as TurnFilters;
}

const LABELS: Record<FilterKey, string> = {
  from: 'from',
  to: 'before',
  characterId: 'character',
  conversationId: 'conversation',
  checkpointId: 'checkpoint',
  experimentId: 'experiment',
  armId: 'arm',
  labellerVersion: 'labeller',
  empathyMin: 'empathy ≥',
  empathyMax: 'empathy ≤',
  humanlikeMin: 'humanlike ≥',
  humanlikeMax: 'humanlike ≤',
  liveEmotionMin: 'live emotion ≥',
  liveEmotionMax: 'live emotion ≤',
  implicitMin: 'implicit ≥',
  implicitMax: 'implicit ≤',
  liveEmotionDeltaMin: 'emotion change ≥',
  liveEmotionDeltaMax: 'emotion change ≤',
  thumb: 'thumb',
  starsMin: 'stars ≥',
  starsMax: 'stars ≤',
  trait: 'trait',
  language: 'language',
  labelStatus: 'labels',
  tag: 'tag',
  hasComment: 'commented',
  population: 'population',
};

/** "character Mira, empathy ≥ 0.5" (names from `names` where an id has one); '' when unfiltered. */
export function describeFilters(filters: Record<string, unknown>, names: Map<string, string> = new Map()) {
  return FILTER_KEYS.filter((key) => filters[key] !== undefined && filters[key] !== '')
    .map((key) => {
      const value = String(filters[key]);
      return `${LABELS[key]} ${names.get(value) ?? value}`;
    })
    .join(', ');
}

/** A UTC day (YYYY-MM-DD) as the instant it starts. */
export const dayStart = (day: string) => `${day}T00:00:00Z`;
/** A UTC day (YYYY-MM-DD) as the instant after it ends (the `to` filter is exclusive). */
export const dayAfter = (day: string) => {
  const next = new Date(`${day}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().replace('.000Z', 'Z');
};
/** The day a `from` instant falls on ('' when it is not a time). */
export const dayOf = (iso: string | undefined) => {
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(at) ? '' : new Date(at).toISOString().slice(0, 10);
};
/** The last day before a `to` instant ('' when it is not a time). */
export const dayBefore = (iso: string | undefined) => {
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(at) ? '' : new Date(at - 1).toISOString().slice(0, 10);
};
