import type { ChatMessage } from '@echoloop/vocabulary';
import {
  type AxisRating,
  EPM_AXES,
  type EpmAxis,
  type EpmState,
  type EpmStep,
  epmStart,
  epmStep,
  iedrToP0,
  norm,
  turnIncrement,
  type Vec3,
} from './epm';
import { iedrJudgeMessages, iedrLevels, type IedrOutput, type TurnJudgeOutput } from './epm-judge';
import { type EpmFailure, epmFailure, epmSuccess } from './epm-verdict';
import { type SentientProfile } from './profile';

/** EMPA's defaults: success is only judged from turn 12, and a dialogue lasts at most 45 turns. */
export const EPM_MIN_TURNS = 12;
export const EPM_MAX_TURNS = 45;

export type EpmVerdict = 'success' | 'failure' | 'undecided';

/** The C/A/P vector of one episode: where it started, every step, and the verdict after the last one. */
export interface EpmRecord {
  /** Where P₀ came from: the profile's precomputed IEDR levels, or the judge's rating. */
  p0Source: 'profile' | 'judge';
  iedr?: { raw: string; rating: IedrOutput };
  state: EpmState;
  verdict: EpmVerdict;
  failure: EpmFailure;
}

/** The per-turn judge's part of a turn's trace. */
export interface EpmTurn {
  raw: string;
  ratings: TurnJudgeOutput;
  step: EpmStep;
}

function epmRecord(p0: Vec3, p0Source: EpmRecord['p0Source'], iedr?: EpmRecord['iedr']): EpmRecord {
  const state = epmStart(p0);
  return { p0Source, ...(iedr && { iedr }), state, verdict: 'undecided', failure: epmFailure(state) };
}

/** P₀ from the profile's precomputed IEDR levels when it has them; otherwise the judge rates the profile. */
export async function openEpm(
  profile: SentientProfile,
  judge: (messages: ChatMessage[]) => Promise<{ raw: string; parsed: IedrOutput }>,
): Promise<EpmRecord> {
  const precomputed = profile.empathy?.p0;
  if (precomputed) return epmRecord(iedrToP0(precomputed), 'profile');
  const { raw, parsed } = await judge(iedrJudgeMessages(profile));
  return epmRecord(iedrToP0(iedrLevels(parsed)), 'judge', { raw, rating: parsed });
}

/** One judged reply applied: v_t from Prog + Neg, the new position and energy, and the verdict after it. */
export function advanceEpm(
  record: EpmRecord,
  judged: { raw: string; parsed: TurnJudgeOutput },
  minTurns = EPM_MIN_TURNS,
): { record: EpmRecord; turn: EpmTurn } {
  const levels = Object.fromEntries(
    EPM_AXES.map((axis) => [axis, { prog: judged.parsed[axis].prog, neg: judged.parsed[axis].neg }]),
  ) as Record<EpmAxis, AxisRating>;
  const state = epmStep(record.state, turnIncrement(judged.parsed), levels);
  const failure = epmFailure(state);
  // The first verdict stands: a run that kept going after it (SAGE's stop rule) cannot undo it.
  const verdict: EpmVerdict =
    record.verdict !== 'undecided'
      ? record.verdict
      : epmSuccess(state, { minTurns })
        ? 'success'
        : failure.failed
          ? 'failure'
          : 'undecided';
  const step = state.steps.at(-1) as EpmStep;
  return {
    record: { ...record, state, verdict, failure },
    turn: { raw: judged.raw, ratings: judged.parsed, step },
  };
}

/** ‖P_T‖ relative to ‖P₀‖: 1 − ‖P_T‖/‖P₀‖ (1 = deficit closed, 0 = no change, negative = worse). */
export function relativeDistanceImprovement(state: EpmState): number | null {
  const r0 = norm(state.p0);
  return r0 === 0 ? null : 1 - norm(state.position) / r0;
}
