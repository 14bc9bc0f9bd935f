import { pairedDifference } from '@echoloop/experiments';
import type { GateCheck, GateCheckName } from '@echoloop/vocabulary';

const METRICS: readonly GateCheckName[] = ['sentient', 'heldout_reward'];

export interface CheckOptions {
  level: number;
  minItems: number;
}

/** `[candidate, default]` values of one item. */
export type Pair = readonly [number, number];

const roleOf = (name: GateCheckName): GateCheck['role'] => (METRICS.includes(name) ? 'metric' : 'guard');
const round = (value: number) => Math.round(value * 10_000) / 10_000;
const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const pct = (level: number) => `${Math.round(level * 1_000) / 10}%`;

function unmeasured(name: GateCheckName, status: 'off' | 'not_run', detail: string): GateCheck {
  const nothing = { candidate: null, default: null, delta: null, interval: null, significance: null };
  return { name, role: roleOf(name), status, items: 0, ...nothing, detail };
}

export const offCheck = (name: GateCheckName, why: string) => unmeasured(name, 'off', why);
export const notRunCheck = (name: GateCheckName, why: string) => unmeasured(name, 'not_run', why);

interface Measured {
  check: Omit<GateCheck, 'status' | 'detail'>;
  lo: number;
  hi: number;
}

/** The paired comparison, or the check that could not run for want of items. */
function compare(name: GateCheckName, pairs: readonly Pair[], o: CheckOptions): Measured | GateCheck {
  const enough = Math.max(2, o.minItems);
  if (pairs.length < enough)
    return notRunCheck(name, `${pairs.length} items measured on both sides, at least ${enough} needed`);
  const diff = pairedDifference(
    pairs.map(([c]) => c),
    pairs.map(([, d]) => d),
    o.level,
  );
  const [lo, hi] = diff.interval;
  const check = {
    name,
    role: roleOf(name),
    items: diff.n,
    candidate: round(mean(pairs.map(([c]) => c))),
    default: round(mean(pairs.map(([, d]) => d))),
    delta: round(diff.mean),
    interval: [round(lo), round(hi)] as [number, number],
    significance: lo > 0 ? ('higher' as const) : hi < 0 ? ('lower' as const) : ('none' as const),
  };
  return { check, lo, hi };
}

const verdict = (check: Measured['check'], failure: string | null): GateCheck => ({
  ...check,
  status: failure ? 'failed' : 'passed',
  detail: failure,
});

const described = (c: Measured['check'], o: CheckOptions) =>
  `candidate ${c.candidate} vs default ${c.default} (Δ ${c.delta}, ${pct(o.level)} CI [${c.interval?.join(', ')}])`;

/** A metric where higher is better (an emotion score, a reward): fails when significantly below the default. */
export function metricCheck(name: GateCheckName, pairs: readonly Pair[], o: CheckOptions): GateCheck {
  const m = compare(name, pairs, o);
  if (!('lo' in m)) return m;
  return verdict(m.check, m.hi < 0 ? `${name} significantly lower: ${described(m.check, o)}` : null);
}

/** A per-answer measure where higher is worse: fails when significantly above the default by more than `tolerance`. */
export function guardCheck(
  name: GateCheckName,
  pairs: readonly Pair[],
  tolerance: number,
  o: CheckOptions,
): GateCheck {
  const m = compare(name, pairs, o);
  if (!('lo' in m)) return m;
  const worse = m.lo > tolerance;
  return verdict(
    m.check,
    worse ? `${name} significantly worse: ${described(m.check, o)}, tolerance ${tolerance}` : null,
  );
}

/**
 * Answer lengths (words) of candidate and default on the same prompts, as a ratio: fails when the interval of the
 * geometric mean ratio lies wholly beyond `maxRatio` either way (significantly terser or wordier).
 */
export function lengthRatioCheck(lengths: readonly Pair[], maxRatio: number, o: CheckOptions): GateCheck {
  // One word added to both, so an empty answer is a large but finite ratio.
  const logRatios = lengths.map(([c, d]): Pair => [Math.log(c + 1) - Math.log(d + 1), 0]);
  const m = compare('length_ratio', logRatios, o);
  if (!('lo' in m)) return m;
  const check = {
    ...m.check,
    candidate: round(mean(lengths.map(([c]) => c))),
    default: round(mean(lengths.map(([, d]) => d))),
    delta: round(Math.exp(m.check.delta ?? 0)),
    interval: [round(Math.exp(m.lo)), round(Math.exp(m.hi))] as [number, number],
  };
  const bound = Math.log(maxRatio);
  const beyond = m.lo > bound || m.hi < -bound;
  return verdict(
    check,
    beyond
      ? `length_ratio beyond ${maxRatio}×: the candidate's answers are ${check.delta}× the default's (${pct(o.level)} CI [${check.interval.join(', ')}])`
      : null,
  );
}

/**
 * The candidate's drift from its parent (the default it was trained from), as training measured it: KL per token
 * on the fixed reference prompts, against the same trust region training kept to. The default's drift from itself
 * is 0, so this guard has no interval: it is over the bound or not.
 */
export function driftCheck(klToParent: number | null, maxKl: number): GateCheck {
  if (klToParent === null)
    return notRunCheck('kl_to_parent', 'the training manifest names no KL to the parent');
  const over = klToParent > maxKl;
  return {
    name: 'kl_to_parent',
    role: 'guard',
    status: over ? 'failed' : 'passed',
    items: 0,
    candidate: round(klToParent),
    default: 0,
    delta: round(klToParent),
    interval: null,
    significance: over ? 'higher' : 'none',
    detail: over
      ? `kl_to_parent ${round(klToParent)} nats per token, over the trust region RL_MAX_KL ${maxKl}`
      : null,
  };
}
