import { norm } from './epm';
import { type EpmQ, epmQ } from './epm-q';
import { type EpmRecord, relativeDistanceImprovement } from './epm-run';

export interface EpmMetrics {
  /** Episodes with a C/A/P vector that did not end in error. */
  count: number;
  successes: number;
  failures: number;
  /** Neither verdict by the last turn. */
  undecided: number;
  successRate: number | null;
  failureRate: number | null;
  /** Mean ‖P₀‖: how deep the deficits were. */
  meanInitialDeficit: number | null;
  /** Mean E_total / ‖P₀‖ (1 = the energy the success test asks for). */
  meanEnergyRatio: number | null;
  /** Mean 1 − ‖P_T‖/‖P₀‖. */
  meanDistanceImprovement: number | null;
  /** EMPA's EPM-Q (0–100 scales) over the episodes whose every turn kept the judge's levels. */
  epmQ: EpmQ | null;
}

const mean = (values: readonly number[]) =>
  values.length ? values.reduce((sum, v) => sum + v, 0) / values.length : null;

/** The EPM figures over episodes that carry a C/A/P vector (errors excluded). */
export function epmMetrics(
  episodes: readonly { endReason: string; epm?: EpmRecord | undefined }[],
): EpmMetrics {
  const records = episodes.flatMap((e) => (e.endReason !== 'error' && e.epm ? [e.epm] : []));
  const count = records.length;
  const successes = records.filter((r) => r.verdict === 'success').length;
  const failures = records.filter((r) => r.verdict === 'failure').length;
  const withDeficit = records.filter((r) => norm(r.state.p0) > 0);
  return {
    count,
    successes,
    failures,
    undecided: count - successes - failures,
    successRate: count ? successes / count : null,
    failureRate: count ? failures / count : null,
    meanInitialDeficit: mean(records.map((r) => norm(r.state.p0))),
    meanEnergyRatio: mean(withDeficit.map((r) => r.state.energy / norm(r.state.p0))),
    meanDistanceImprovement: mean(withDeficit.map((r) => relativeDistanceImprovement(r.state) ?? 0)),
    epmQ: epmQ(records.map((r) => r.state)),
  };
}
