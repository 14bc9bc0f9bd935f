const maxValues = 256;

/**
 * The grammar cannot express numeric bounds, so a bounded number becomes the enum of the values in range on the
 * finest decimal grid (0.001, 0.01, 0.1, 1; integers only 1) that keeps it to 256 values. Undefined when the
 * schema lacks a bound, or the range is empty or too wide.
 */
export function boundedNumberValues(schema: Record<string, unknown>, integer: boolean): number[] | undefined {
  for (let decimals = integer ? 0 : 3; decimals >= 0; decimals -= 1) {
    const scale = 10 ** decimals;
    const low = scaledBound(schema['minimum'], schema['exclusiveMinimum'], scale, 1);
    const high = scaledBound(schema['maximum'], schema['exclusiveMaximum'], scale, -1);
    if (low === undefined || high === undefined || high < low) return undefined;
    if (high - low < maxValues)
      return Array.from({ length: high - low + 1 }, (_, index) => (low + index) / scale);
  }
  return undefined;
}

/** The first grid step inside the bound, counted in steps; `direction` 1 for a lower bound, -1 for an upper one. */
function scaledBound(
  inclusive: unknown,
  exclusive: unknown,
  scale: number,
  direction: 1 | -1,
): number | undefined {
  // Draft 4 writes an exclusive bound as `exclusiveMinimum: true` next to `minimum`.
  const isExclusive = typeof exclusive === 'number' || (exclusive === true && typeof inclusive === 'number');
  const bound = typeof exclusive === 'number' ? exclusive : inclusive;
  if (typeof bound !== 'number' || !Number.isFinite(bound)) return undefined;
  const scaled = bound * scale;
  // 0.1 * 100 is 10.000000000000002: a bound on the grid must stay on it.
  const onGrid = Math.abs(scaled - Math.round(scaled)) < 1e-9;
  if (onGrid) return Math.round(scaled) + (isExclusive ? direction : 0);
  return direction === 1 ? Math.ceil(scaled) : Math.floor(scaled);
}
