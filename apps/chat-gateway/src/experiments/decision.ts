/** What the sequential test on the primary metric says of the treatment arm, once it is conclusive. */
export interface Decision {
  metric: string;
  armId: string | null;
  /** `promote` a clear winner, `stop` a clear loser; null while the test is not conclusive. */
  verdict: 'promote' | 'stop' | null;
  reason: string;
}
