/** Every check the release gate runs, main metric first; an operator may turn any of them off (GATE_CHECKS_OFF). */
export const GATE_CHECK_NAMES = [
  'sentient',
  'heldout_reward',
  'repeated_sentences',
  'repeated_ngrams',
  'empty_or_refusal',
  'length_ratio',
  'kl_to_parent',
] as const;
export type GateCheckName = (typeof GATE_CHECK_NAMES)[number];

/**
 * One line of the gate's report: candidate and default measured on the same items, the paired difference with its
 * confidence interval, and what the gate made of it.
 */
export interface GateCheck {
  name: GateCheckName;
  /** A metric must not be significantly worse; a guard must not be significantly more degenerate. */
  role: 'metric' | 'guard';
  /** `off`: an operator turned it off by configuration; `not_run`: it could not run, which fails the gate. */
  status: 'passed' | 'failed' | 'off' | 'not_run';
  /** Items measured on both sides. */
  items: number;
  candidate: number | null;
  default: number | null;
  /** Mean paired difference (candidate − default); for the length ratio, candidate / default. */
  delta: number | null;
  interval: [number, number] | null;
  /** Where the interval of the difference lies: wholly above none, wholly below, or across it. */
  significance: 'higher' | 'lower' | 'none' | null;
  /** Why it failed, could not run or is off. */
  detail: string | null;
}

/** The gate's verdict on a candidate, as the job stores it and every reader shows it. */
export interface GateReport {
  passed: boolean;
  /** The main metric (the first metric that ran: sentient, else held-out reward) is significantly better. */
  better: boolean;
  /** Confidence level of every interval. */
  level: number;
  /** Why it failed (empty when it passed). */
  reasons: string[];
  /** Checks an operator turned off. */
  notes: string[];
  checks: GateCheck[];
  /** The two sentient-benchmark runs, for their side-by-side page. */
  evaluations: { candidate: string; default: string } | null;
}
