export interface ImplicitSignals {
  /** The user asked for another version of this reply. */
  regenerated: boolean;
  /** Whether this reply stayed in the conversation (false: swiped away or deleted); null when unknown. */
  kept: boolean | null;
  thumbs: -1 | 1 | null;
  /** 1-5 stars: a separate answer from thumbs. */
  stars: 1 | 2 | 3 | 4 | 5 | null;
  /** The user rewrote this reply's text (the conversation continued from theirs). */
  edited: boolean;
  nextMessageLatencyMs: number | null;
  nextMessageChars: number | null;
  /** The user wrote again after this reply; false when the conversation ended here, null when not known yet. */
  continued: boolean | null;
  /**
   * The conversation ended here and the user came back within the return window (a later conversation): credited,
   * late, to its last turns.
   */
  returned: boolean;
}

export const QUICK_REPLY_MS = 60_000;
export const LONG_REPLY_CHARS = 80;
export const RETURN_TERM = 0.4;
/** As strong as a regeneration: the user rewrote the reply rather than asking for another. */
export const EDIT_TERM = -0.5;

/**
 * A simple rule, in [-1, 1]:
 * - thumbs, when given, is the answer (±1): the user said so;
 * - otherwise the mean of the terms present:
 *   stars (s − 3) / 2, so one star is −1 and five +1; kept +0.3, or −0.5 when regenerated or not kept; edited −0.5;
 *   continued +0.2, ended −0.2; a quick (≤ 60 s) long (≥ 80 characters) next message +0.1; came back within the
 *   return window +0.4 (coming back is the clearest sign a conversation did the user good);
 * - no terms at all: 0 (use hasImplicitSignal to tell "neutral" from "nothing known").
 */
export function implicitReward(signals: ImplicitSignals): number {
  if (signals.thumbs !== null) return signals.thumbs;
  const terms = implicitTerms(signals);
  if (terms.length === 0) return 0;
  const mean = terms.reduce((sum, term) => sum + term, 0) / terms.length;
  return Math.max(-1, Math.min(1, mean)) + 0;
}

export function hasImplicitSignal(signals: ImplicitSignals): boolean {
  return signals.thumbs !== null || implicitTerms(signals).length > 0;
}

function implicitTerms(signals: ImplicitSignals): number[] {
  const terms: number[] = [];
  if (signals.stars !== null) terms.push((signals.stars - 3) / 2);
  if (signals.kept === true) terms.push(0.3);
  else if (signals.regenerated || signals.kept === false) terms.push(-0.5);
  if (signals.edited) terms.push(EDIT_TERM);
  if (signals.continued !== null) terms.push(signals.continued ? 0.2 : -0.2);
  if (signals.returned) terms.push(RETURN_TERM);
  const { nextMessageLatencyMs: latency, nextMessageChars: chars } = signals;
  if (latency !== null && chars !== null && latency <= QUICK_REPLY_MS && chars >= LONG_REPLY_CHARS)
    terms.push(0.1);
  return terms;
}
