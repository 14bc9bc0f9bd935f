/**
 * Learns, per checkpoint, how the serving endpoint's real prompt token counts (the `usage` of each reply)
 * compare with our character-based estimate, so the context budget follows the real tokenizer rather than a
 * guess. Until a checkpoint has answered once, the factor is 1.
 */
export class TokenCalibration {
  private readonly factors = new Map<string, number>();

  constructor(private readonly smoothing = 0.2) {}

  factor(checkpointId: string): number {
    return this.factors.get(checkpointId) ?? 1;
  }

  /** Records one reply: the endpoint counted `actual` prompt tokens where we estimated `estimated`. */
  observe(checkpointId: string, estimated: number, actual: number): void {
    if (estimated <= 0 || actual <= 0) return;
    const ratio = Math.min(4, Math.max(0.25, actual / estimated));
    const previous = this.factors.get(checkpointId);
    this.factors.set(
      checkpointId,
      previous === undefined ? ratio : previous + this.smoothing * (ratio - previous),
    );
  }
}
