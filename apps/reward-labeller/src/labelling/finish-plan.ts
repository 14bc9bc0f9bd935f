import type { RewardTurnEntity, TurnSignals } from '@echoloop/persistence';
import type { LabelDraft } from './label-draft';
import type { TurnPayload } from './turn-payload';

/** One turn to finish: its live emotion (when judged for this plan) first, then its last labels. */
export interface FinishStep {
  turn: RewardTurnEntity;
  emotion: { draft: LabelDraft; scoreAfter: number | null } | null;
  last: LabelDraft[];
}

/**
 * What labelling changes once its judges have answered, for any number of turns (a Kafka batch, the leave sweep's
 * round, one backfilled turn): signals to merge, then turns to finish in order.
 */
export interface FinishPlan {
  /** The signals of the turns planned for, as the plan read them. */
  read: Map<string, TurnSignals>;
  signals: Map<string, TurnSignals>;
  steps: FinishStep[];
}

/** Feedback changed turns while their plan was made: they are labelled again from what is stored. */
export class StalePlanError extends Error {
  constructor(turns: number) {
    super(`feedback changed ${turns} turn(s) while their batch was labelled`);
    this.name = 'StalePlanError';
  }
}

/** Of each user message's turns in the batch, the last to arrive: every other alternative was regenerated. */
export function newestPerUserMessage(
  turns: readonly TurnPayload[],
): { userMessageId: string; turnId: string }[] {
  const newest = new Map<string, string>();
  for (const t of turns) newest.set(t.userMessage.id, t.turnId);
  return [...newest].map(([userMessageId, turnId]) => ({ userMessageId, turnId }));
}

/**
 * The reply a user message answers, of the unfinished turns before it (newest first): the alternative the user
 * picked explicitly (a swipe back to an older one), else the newest.
 */
export function answeredOf(waiting: readonly RewardTurnEntity[]): RewardTurnEntity | undefined {
  const newest = waiting[0];
  const picked = waiting.find((t) => t.userMessageId === newest?.userMessageId && t.signals.kept === true);
  return picked ?? newest;
}

/**
 * Carrying on from a reply keeps it: when the answered reply had alternatives and the user picked none of them
 * explicitly, it is kept and the others are not (what preference pairs are built from).
 */
export function keepAnswered(
  answered: RewardTurnEntity | undefined,
  waiting: readonly RewardTurnEntity[],
  patch: (turn: RewardTurnEntity, change: TurnSignals) => void,
): void {
  if (!answered) return;
  const alternatives = waiting.filter((t) => t.userMessageId === answered.userMessageId);
  if (alternatives.length < 2 || alternatives.some((t) => t.signals.kept !== undefined)) return;
  for (const turn of alternatives) patch(turn, { kept: turn.turnId === answered.turnId });
}

export function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}
