import { z } from 'zod';

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
export const gateCheck = z.object({
  name: z.enum(GATE_CHECK_NAMES),
  role: z
    .enum(['metric', 'guard'])
    .describe('A metric must not be significantly worse; a guard must not be significantly more degenerate'),
  status: z
    .enum(['passed', 'failed', 'off', 'not_run'])
    .describe(
      '`off`: an operator turned it off by configuration; `not_run`: it could not run, which fails the gate',
    ),
  items: z.number().int().describe('Items measured on both sides'),
  candidate: z.number().nullable(),
  default: z.number().nullable(),
  delta: z
    .number()
    .nullable()
    .describe('Mean paired difference (candidate − default); for the length ratio, candidate / default'),
  interval: z.tuple([z.number(), z.number()]).nullable(),
  significance: z
    .enum(['higher', 'lower', 'none'])
    .nullable()
    .describe('Where the interval of the difference lies: wholly above none, wholly below, or across it'),
  detail: z.string().nullable().describe('Why it failed, could not run or is off'),
});
export type GateCheck = z.infer<typeof gateCheck>;

/** The gate's verdict on a candidate, as the job stores it and every reader shows it. */
export const gateReport = z.object({
  passed: z.boolean(),
  better: z
    .boolean()
    .describe(
      'The main metric (the first metric that ran: sentient, else held-out reward) is significantly better',
    ),
  level: z.number().describe('Confidence level of every interval'),
  reasons: z.array(z.string()).describe('Why it failed (empty when it passed)'),
  notes: z.array(z.string()).describe('Checks an operator turned off'),
  checks: z.array(gateCheck),
  evaluations: z
    .object({ candidate: z.string(), default: z.string() })
    .nullable()
    .describe('The two sentient-benchmark runs, for their side-by-side page'),
});
export type GateReport = z.infer<typeof gateReport>;

type LegacySide = { candidate: number | null; default: number | null; delta: number | null };
/** A report from before the gate had intervals: two comparisons, without one. */
type LegacyGate = {
  sentient?:
    | (LegacySide & { profiles: number; candidateEvaluationId: string; defaultEvaluationId: string })
    | null;
  heldout?: (LegacySide & { items: number }) | null;
};

function legacyChecks(gate: LegacyGate): GateCheck[] {
  const row = (name: GateCheckName, items: number, side: LegacySide): GateCheck => ({
    name,
    role: 'metric',
    status: 'passed',
    items,
    candidate: side.candidate,
    default: side.default,
    delta: side.delta,
    interval: null,
    significance: null,
    detail: null,
  });
  return [
    ...(gate.sentient ? [row('sentient', gate.sentient.profiles, gate.sentient)] : []),
    ...(gate.heldout ? [row('heldout_reward', gate.heldout.items, gate.heldout)] : []),
  ];
}

/**
 * The report a job holds, in today's shape: one from before the gate had intervals (and a level, notes and checks)
 * reads as its two comparisons, with no interval. Null when the job holds none.
 */
export function gateReportOf(stored: Record<string, unknown> | null | undefined): GateReport | null {
  const gate = stored as (Partial<GateReport> & LegacyGate) | null | undefined;
  if (!gate || typeof gate.passed !== 'boolean') return null;
  const legacy = gate.sentient
    ? { candidate: gate.sentient.candidateEvaluationId, default: gate.sentient.defaultEvaluationId }
    : null;
  return {
    passed: gate.passed,
    better: gate.better === true,
    level: typeof gate.level === 'number' ? gate.level : 0.95,
    reasons: Array.isArray(gate.reasons) ? gate.reasons : [],
    notes: Array.isArray(gate.notes) ? gate.notes : [],
    checks: Array.isArray(gate.checks) ? gate.checks : legacyChecks(gate),
    evaluations: gate.evaluations ?? legacy,
  };
}
