import { pseudonymize } from '../pseudonym';
import { redactText } from '../redact';
import type { LabelledTurn } from './labelled-turns';
import { type PreferenceRecord, type Privacy, promptOf, rewardValues } from './records';

export interface PairingOptions {
  /** Two regenerations whose composites differ by at least this much make a pair (when the user said nothing). */
  rewardMargin: number;
}

export const DEFAULT_PAIRING: PairingOptions = { rewardMargin: 0.2 };

/** What the user said of a reply on one scale: stars, else a thumb (up 5, down 1); null when nothing. */
function explicitScore(turn: LabelledTurn): number | null {
  const { stars, thumbs } = turn.signals;
  if (typeof stars === 'number') return stars;
  if (thumbs === 1) return 5;
  if (thumbs === -1) return 1;
  return null;
}

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
      const [sa, sb] = [explicitScore(a), explicitScore(b)];
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

export function toPreferenceRecord(
  [chosen, rejected, source]: [LabelledTurn, LabelledTurn, PreferenceRecord['source']],
  privacy: Privacy,
): PreferenceRecord {
  const side = (turn: LabelledTurn) => {
    const { rewards, composite } = rewardValues(turn);
    return { ...rewards, composite: composite?.value ?? null };
  };
  const reply = (turn: LabelledTurn) => [
    { role: 'assistant' as const, content: redactText(turn.turn.assistantMessage.content) },
  ];
  return {
    prompt: promptOf(chosen),
    chosen: reply(chosen),
    rejected: reply(rejected),
    source,
    chosenTurnId: chosen.turnId,
    rejectedTurnId: rejected.turnId,
    user: pseudonymize(privacy.pseudonymKey, chosen.userId),
    checkpointId: chosen.checkpointId,
    chosenRewards: side(chosen),
    rejectedRewards: side(rejected),
  };
}

/** Groups a stream ordered by user message into each message's alternatives, then their pairs' records. */
export async function* preferenceRecords(
  turns: AsyncIterable<LabelledTurn>,
  privacy: Privacy,
  options: PairingOptions = DEFAULT_PAIRING,
): AsyncGenerator<PreferenceRecord> {
  let group: LabelledTurn[] = [];
  const flush = function* () {
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
