const MiB = 1024 * 1024;

export interface CardLimits {
  /** The largest file accepted, in bytes. */
  maxBytes: number;
  /** The most a CHARX archive may expand to, all entries together (zip-bomb guard). */
  maxUncompressedBytes: number;
  /** The most entries a CHARX archive may hold. */
  maxEntries: number;
}

export const DEFAULT_CARD_LIMITS: Readonly<CardLimits> = Object.freeze({
  maxBytes: 20 * MiB,
  maxUncompressedBytes: 64 * MiB,
  maxEntries: 1000,
});

export function resolveLimits(overrides: Partial<CardLimits> = {}): CardLimits {
  return { ...DEFAULT_CARD_LIMITS, ...overrides };
}
