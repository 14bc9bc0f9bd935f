import { statedScore } from '@echoloop/rewards';
import { pseudonymize } from '../pseudonym';
import { redactText } from '../redact';
import type { LabelledTurn } from './labelled-turns';
import { editOf, type PreferenceRecord, type Privacy, promptOf, replyNotesOf, rewardValues } from './records';

export interface PairingOptions {
  /** Two regenerations whose composites differ by at least this much make a pair (when the user said nothing). */
  rewardMargin: number;
}

export const DEFAULT_PAIRING: PairingOptions = { rewardMargin: 0.2 };

/**
 * The preference pairs among the alternatives of one user message, strongest evidence first, one pair per
 * (chosen, rejected): the kept swipe over each discarded one; a better-rated alternative over a worse-rated one;
 * else a composite higher by the margin.
 */
export function pairsOf(
  alternatives: readonly LabelledTurn[],
  options: PairingOptions,
): [LabelledTurn, LabelledTurn, PreferenceRecord['source']][] {
  const pairs = new Map<string, [LabelledTurn, LabelledTurn, PreferenceRecord['source']]>();
  const add = (chosen: LabelledTurn, rejected: LabelledTurn, source: PreferenceRecord['source']) => {
    const key = [chosen.turnId, rejected.turnId].sort().join();
    if (!pairs.has(key)) pairs.set(key, [chosen, rejected, source]);
  };
  const kept = alternatives.filter((t) => t.signals.kept === true);
  for (const k of kept) for (const r of alternatives) if (r.signals.kept === false) add(k, r, 'swipe');
  for (const a of alternatives)
    for (const b of alternatives) {
      const [sa, sb] = [statedScore(a.signals), statedScore(b.signals)];
      if (sa !== null && sb !== null && sa > sb) add(a, b, 'rating');
    }
  const composites = new Map(alternatives.map((t) => [t, rewardValues(t).composite?.value]));
  for (const a of alternatives)
    for (const b of alternatives) {
      const [ca, cb] = [composites.get(a), composites.get(b)];
      if (ca !== undefined && cb !== undefined && ca - cb >= options.rewardMargin) add(a, b, 'reward_margin');
    }
  return [...pairs.values()];
}

const reply = (content: string) => [{ role: 'assistant' as const, content: redactText(content) }];

const labelsOf = (turn: LabelledTurn) => {
  const { rewards, composite } = rewardValues(turn);
  return { ...rewards, composite: composite?.value ?? null };
};

const UNLABELLED = { empathy: null, humanlike: null, live_emotion: null, implicit: null, composite: null };

export function toPreferenceRecord(
  [chosen, rejected, source]: [LabelledTurn, LabelledTurn, PreferenceRecord['source']],
  privacy: Privacy,
): PreferenceRecord {
  return {
    prompt: promptOf(chosen),
    chosen: reply(chosen.turn.assistantMessage.content),
    rejected: reply(rejected.turn.assistantMessage.content),
    source,
    chosenTurnId: chosen.turnId,
    rejectedTurnId: rejected.turnId,
    user: pseudonymize(privacy.pseudonymKey, chosen.userId),
    checkpointId: chosen.checkpointId,
    chosenRewards: labelsOf(chosen),
    rejectedRewards: labelsOf(rejected),
    chosenNotes: replyNotesOf(chosen),
    rejectedNotes: replyNotesOf(rejected),
  };
}

/** The user's edit over the model's reply it replaced: the strongest preference a user gives; null when unedited. */
export function editPreferenceRecord(turn: LabelledTurn, privacy: Privacy): PreferenceRecord | null {
  const edit = editOf(turn);
  if (edit === null) return null;
  return {
    prompt: promptOf(turn),
    chosen: reply(edit),
    rejected: reply(turn.turn.assistantMessage.content),
    source: 'edit',
    chosenTurnId: turn.turnId,
    rejectedTurnId: turn.turnId,
    user: pseudonymize(privacy.pseudonymKey, turn.userId),
    checkpointId: turn.checkpointId,
    chosenRewards: UNLABELLED,
    rejectedRewards: labelsOf(turn),
    // What the user said of the reply they rewrote is about the model's text.
    chosenNotes: { tags: [], comment: null },
    rejectedNotes: replyNotesOf(turn),
  };
}

/**
 * Groups a stream ordered by user message into each message's alternatives, then their pairs' records: each edit
 * over its reply first, then the pairs among the alternatives.
 */
export async function* preferenceRecords(
  turns: AsyncIterable<LabelledTurn>,
  privacy: Privacy,
  options: PairingOptions = DEFAULT_PAIRING,
): AsyncGenerator<PreferenceRecord> {
  let group: LabelledTurn[] = [];
  const flush = function* () {
    for (const turn of group) {
      const edit = editPreferenceRecord(turn, privacy);
      if (edit) yield edit;
    }
    for (const pair of pairsOf(group, options)) yield toPreferenceRecord(pair, privacy);
  };
  for await (const turn of turns) {
    if (group[0] && group[0].userMessageId !== turn.userMessageId) {
      yield* flush();
      group = [];
    }
    group.push(turn);
  }
  yield* flush();
}
