import { createHash } from 'node:crypto';
import { z } from 'zod';
import { pseudonymize } from '../pseudonym';
import { redactText } from '../redact';
import type { LabelledTurn } from './labelled-turns';
import { editOf, type Privacy, promptOf, rewardValues } from './records';

const message = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });

export const SFT_SOURCES = ['reward', 'edit'] as const;

/**
 * `sft`: a chat that ends with a reply worth imitating: one the user wrote in place of the model's (an edit), or a
 * model reply whose composite is at least the minimum.
 */
export const sftRecord = z.object({
  messages: z.array(message).describe('The context, then the reply; PII redacted'),
  source: z.enum(SFT_SOURCES).describe("`edit`: the user's own text in place of the model's reply"),
  reward: z.number().nullable().describe('The reply’s composite reward; null for an edit (never labelled)'),
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
      .describe(
        'The reply the user wrote in place of one (an edit), kept or liked, as the Echo-N1 reference; may be ""',
      ),
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

/** The reply to imitate: the user's edit when there is one (never the model's text it replaced), else a good reply. */
export function toSftRecord(turn: LabelledTurn, privacy: Privacy, minReward: number): SftRecord | null {
  const edit = editOf(turn);
  const composite = rewardValues(turn).composite?.value;
  if (edit === null && (composite === undefined || composite < minReward || turn.signals.kept === false))
    return null;
  return {
    messages: [
      ...promptOf(turn),
      { role: 'assistant', content: redactText(edit ?? turn.turn.assistantMessage.content) },
    ],
    source: edit === null ? 'reward' : 'edit',
    reward: edit === null ? (composite ?? null) : null,
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

/**
 * One prompt per user message (its alternatives share it), with the reference the user gave when any: their edit,
 * else the liked alternative.
 */
export function toVerlRecord(
  turn: LabelledTurn,
  alternatives: readonly LabelledTurn[],
  privacy: Privacy,
  index: number,
): VerlRecord {
  const edited = alternatives.map(editOf).find((edit) => edit !== null);
  const reference = edited ?? alternatives.find(liked)?.turn.assistantMessage.content;
  return {
    data_source: VERL_DATA_SOURCE,
    prompt: promptOf(turn),
    ability: 'empathy',
    reward_model: {
      style: 'model',
      ground_truth: reference === undefined ? '' : redactText(reference),
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
