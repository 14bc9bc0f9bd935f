import { createHash } from 'node:crypto';
import { z } from 'zod';
import { pseudonymize } from '../pseudonym';
import { redactText } from '../redact';
import type { LabelledTurn } from './labelled-turns';
import { type Privacy, promptOf, rewardValues } from './records';

const message = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });

/** `sft`: a chat that ends with a reply good enough to imitate (composite at least the minimum). */
export const sftRecord = z.object({
  messages: z.array(message).describe('The context, then the reply; PII redacted'),
  reward: z.number().describe('The reply’s composite reward'),
  turnId: z.uuid(),
  user: z.string(),
  checkpointId: z.string(),
});
export type SftRecord = z.infer<typeof sftRecord>;

/** `verl`: an RL prompt as VeRL reads it (docs/preparation/prepare_data.rst). */
export const verlRecord = z.object({
  data_source: z.string().describe('Selects the reward function: the live reward scorer'),
  prompt: z.array(message).describe('The chat up to the user message; PII redacted'),
  ability: z.string(),
  reward_model: z.object({
    style: z.literal('model'),
    ground_truth: z
      .string()
      .describe('The reply the user kept or rated best, as the Echo-N1 reference; may be ""'),
  }),
  extra_info: z.object({
    split: z.enum(['train', 'test']).describe('A stable 90/10 split by turn id'),
    index: z.number().int(),
    turn_id: z.uuid(),
    user: z.string(),
    interaction_kwargs: z.object({ name: z.string() }),
  }),
});
export type VerlRecord = z.infer<typeof verlRecord>;

export const DEFAULT_SFT_MIN_REWARD = 0.5;
export const VERL_DATA_SOURCE = 'echoloop_live';

export function toSftRecord(turn: LabelledTurn, privacy: Privacy, minReward: number): SftRecord | null {
  const composite = rewardValues(turn).composite?.value;
  if (composite === undefined || composite < minReward || turn.signals.kept === false) return null;
  return {
    messages: [
      ...promptOf(turn),
      { role: 'assistant', content: redactText(turn.turn.assistantMessage.content) },
    ],
    reward: composite,
    turnId: turn.turnId,
    user: pseudonymize(privacy.pseudonymKey, turn.userId),
    checkpointId: turn.checkpointId,
  };
}

/** Held out when the first byte of sha256(turn id) is below 10% of 256: stable whatever else is exported. */
export const heldOut = (turnId: string): boolean =>
  createHash('sha256').update(turnId).digest().readUInt8(0) < 26;

const liked = (turn: LabelledTurn) =>
  turn.signals.kept === true || turn.signals.thumbs === 1 || (turn.signals.stars ?? 0) >= 4;

/** One prompt per user message (its alternatives share it), the liked alternative as the reference when any. */
export function toVerlRecord(
  turn: LabelledTurn,
  alternatives: readonly LabelledTurn[],
  privacy: Privacy,
  index: number,
): VerlRecord {
  const reference = alternatives.find(liked);
  return {
    data_source: VERL_DATA_SOURCE,
    prompt: promptOf(turn),
    ability: 'empathy',
    reward_model: {
      style: 'model',
      ground_truth: reference ? redactText(reference.turn.assistantMessage.content) : '',
    },
    extra_info: {
      split: heldOut(turn.turnId) ? 'test' : 'train',
      index,
      turn_id: turn.turnId,
      user: pseudonymize(privacy.pseudonymKey, turn.userId),
      interaction_kwargs: { name: 'sentient_user' },
    },
  };
}
