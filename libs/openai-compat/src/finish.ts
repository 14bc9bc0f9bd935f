export type FinishReason = 'stop' | 'length';

export interface Finish {
  reason: FinishReason;
  /** The stop string that ended generation (vLLM's `stop_reason`); null for end-of-sequence or length. */
  stopReason?: string | null;
}
