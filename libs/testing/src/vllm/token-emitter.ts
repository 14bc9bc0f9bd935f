import type { FakeVllmFaults } from './fake-vllm-types';
import { pause } from './http-exchange';

export type EmitOutcome = 'done' | 'failed' | 'stalled' | 'aborted';

/**
 * Plays the pieces out in time according to the faults: waits before the first one, paces the rest,
 * and stops where a fault says so. A fault count beyond the last piece triggers after all of them.
 */
export async function emitPieces(
  pieces: readonly string[],
  faults: FakeVllmFaults,
  signal: AbortSignal,
  onPiece: (piece: string, index: number) => Promise<void>,
): Promise<EmitOutcome> {
  await pause(faults.delayBeforeFirstTokenMs ?? 0, signal);
  const interval = faults.tokensPerSecond ? 1000 / faults.tokensPerSecond : 0;
  const firstAt = performance.now();
  for (const [index, piece] of pieces.entries()) {
    if (signal.aborted) return 'aborted';
    const fault = faultAt(faults, index);
    if (fault) return fault;
    // Scheduled from the first token rather than the previous one, so timer lateness does not accumulate.
    await pause(firstAt + index * interval - performance.now(), signal);
    if (signal.aborted) return 'aborted';
    await onPiece(piece, index);
  }
  if (signal.aborted) return 'aborted';
  return faultAt(faults, Number.POSITIVE_INFINITY) ?? 'done';
}

function faultAt(faults: FakeVllmFaults, sentTokens: number): 'failed' | 'stalled' | undefined {
  if (faults.failAfterTokens !== undefined && faults.failAfterTokens <= sentTokens) return 'failed';
  if (faults.stallAfterTokens !== undefined && faults.stallAfterTokens <= sentTokens) return 'stalled';
  return undefined;
}
