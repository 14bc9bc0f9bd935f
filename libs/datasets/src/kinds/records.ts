import { z } from 'zod';
import { LABEL_STATUSES, type LabelStatus } from '../filters';
import { pseudonymize } from '../pseudonym';
import { redactText } from '../redact';
import { type LabelledTurn, rewardsOf } from './labelled-turns';

export const DATASET_SCHEMA_VERSION = 1;
/** The conversation window a turn record carries: the newest messages before the reply. */
export const CONTEXT_MESSAGES = 20;

const message = z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() });
const rewards = z.object({
  empathy: z.number().nullable(),
  humanlike: z.number().nullable(),
  live_emotion: z.number().nullable(),
  implicit: z.number().nullable(),
});

/** What the user wrote about a reply, besides rating it. */
const replyNotes = z.object({
  tags: z.array(z.string()).describe('The tags the user gave the reply'),
  comment: z.string().nullable().describe("The user's comment on the reply; PII redacted"),
});

/** `turns`: one labelled turn with its rewards, feedback, persona and a window of the conversation. */
export const turnRecord = z.object({
  schemaVersion: z.literal(DATASET_SCHEMA_VERSION),
  turnId: z.uuid(),
  conversationId: z.uuid(),
  user: z.string().describe('Pseudonym: stable within one export key, never the user id'),
  characterId: z.uuid(),
  checkpointId: z.string(),
  experimentId: z.uuid().nullable(),
  armId: z.string().nullable(),
  repliedAt: z.iso.datetime(),
  client: z
    .string()
    .nullable()
    .describe(
      "The OpenAI-compatible client that asked for the turn (its key's name); null for Echoloop's apps",
    ),
  labellerVersion: z.string().nullable().describe('null while the turn is pending with no label yet'),
  labelState: z
    .object({
      status: z.enum(LABEL_STATUSES),
      failures: z
        .array(z.object({ component: z.string(), reason: z.string().describe('PII redacted') }))
        .describe('The components that failed, with why'),
    })
    .describe("The labels' state under labellerVersion: a failed component has no reward"),
  rewards,
  composite: z.object({ value: z.number(), version: z.string() }).nullable(),
  liveEmotionDelta: z.number().nullable(),
  feedback: z.object({
    thumbs: z.union([z.literal(1), z.literal(-1)]).nullable(),
    stars: z.number().int().min(1).max(5).nullable(),
    kept: z.boolean().nullable(),
    regenerated: z.boolean(),
    edited: z.boolean(),
    ...replyNotes.shape,
  }),
  persona: z.record(z.string(), z.unknown()),
  context: z.array(message).describe('The conversation before the reply, PII redacted, newest last'),
  reply: z.string().describe("The model's reply; PII redacted"),
  editedReply: z
    .string()
    .nullable()
    .describe(
      'The text the user put in place of the reply (the conversation continued from it); PII redacted',
    ),
});
export type TurnRecord = z.infer<typeof turnRecord>;

export const PREFERENCE_SOURCES = ['edit', 'swipe', 'rating', 'reward_margin'] as const;

/** `preferences`: TRL / OpenRLHF conversational preference pairs, with where the preference came from. */
export const preferenceRecord = z.object({
  prompt: z.array(message).describe('The shared context, ending with the user message'),
  chosen: z.array(message).describe('One assistant message'),
  rejected: z.array(message).describe('One assistant message'),
  source: z
    .enum(PREFERENCE_SOURCES)
    .describe("`edit`: the user's text over the model's reply it replaced (both sides are that one turn)"),
  chosenTurnId: z.uuid(),
  rejectedTurnId: z.uuid(),
  user: z.string(),
  checkpointId: z.string(),
  chosenRewards: rewards
    .extend({ composite: z.number().nullable() })
    .describe("The chosen reply's labels; all null for a user's edit (never labelled)"),
  rejectedRewards: rewards.extend({ composite: z.number().nullable() }),
  chosenNotes: replyNotes.describe("The user's tags and comment on the chosen reply; none for a user's edit"),
  rejectedNotes: replyNotes.describe("The user's tags and comment on the rejected reply"),
});
export type PreferenceRecord = z.infer<typeof preferenceRecord>;

export interface Privacy {
  /** HMAC key of the pseudonyms. */
  pseudonymKey: string;
}

type Message = z.infer<typeof message>;

/** The turn's prompt as the model saw it (without system text), PII redacted, ending with the user message. */
export function promptOf(turn: LabelledTurn, window = CONTEXT_MESSAGES): Message[] {
  const history = turn.turn.history
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role as Message['role'], content: redactText(m.content) }));
  return [...history, { role: 'user' as const, content: redactText(turn.turn.userMessage.content) }].slice(
    -window,
  );
}

/** The user's text in place of the reply, when they edited it. */
export const editOf = (turn: LabelledTurn): string | null => turn.signals.edit?.content ?? null;

export function rewardValues(turn: LabelledTurn) {
  const { components, composite } = rewardsOf(turn);
  return {
    rewards: {
      empathy: components.empathy ?? null,
      humanlike: components.humanlike ?? null,
      live_emotion: components.live_emotion ?? null,
      implicit: components.implicit ?? null,
    },
    composite,
  };
}

export function toTurnRecord(turn: LabelledTurn, privacy: Privacy): TurnRecord {
  const { rewards: values, composite } = rewardValues(turn);
  const stars = turn.signals.stars;
  return {
    schemaVersion: DATASET_SCHEMA_VERSION,
    turnId: turn.turnId,
    conversationId: turn.conversationId,
    user: pseudonymize(privacy.pseudonymKey, turn.userId),
    characterId: turn.turn.characterId,
    checkpointId: turn.checkpointId,
    experimentId: turn.experimentId,
    armId: turn.armId,
    repliedAt: turn.repliedAt.toISOString(),
    client: nullableRedacted(turn.clientName),
    labellerVersion: turn.labellerVersion,
    labelState: labelStateOf(turn),
    rewards: values,
    composite,
    liveEmotionDelta: turn.labels.find((l) => l.component === 'live_emotion')?.delta ?? null,
    feedback: {
      thumbs: turn.signals.thumbs === 1 || turn.signals.thumbs === -1 ? turn.signals.thumbs : null,
      stars: typeof stars === 'number' && stars >= 1 && stars <= 5 ? stars : null,
      kept: turn.signals.kept ?? null,
      regenerated: turn.signals.regenerated === true,
      edited: editOf(turn) !== null,
      ...replyNotesOf(turn),
    },
    persona: turn.turn.personaSnapshot,
    context: promptOf(turn),
    reply: redactText(turn.turn.assistantMessage.content),
    editedReply: nullableRedacted(editOf(turn)),
  };
}

const MAX_REASON = 300;

/**
 * Pending until the turn's labels are all in; then failed when no component was labelled, partly failed when some
 * were (skipped components count for neither). A pending turn's failures are those so far (a retry may repair them).
 */
export function labelStateOf(turn: LabelledTurn): TurnRecord['labelState'] {
  const failures = turn.labels
    .filter((l) => l.status === 'failed')
    .map((l) => ({ component: l.component, reason: redactText((l.error ?? 'failed').slice(0, MAX_REASON)) }));
  const labelled = turn.labels.some((l) => l.status === 'labelled');
  const status: LabelStatus = !turn.finished
    ? 'pending'
    : failures.length === 0
      ? 'labelled'
      : labelled
        ? 'partially_failed'
        : 'failed';
  return { status, failures };
}

/** The user's tags and comment on the turn's reply, the comment PII redacted. */
export const replyNotesOf = (turn: LabelledTurn): z.infer<typeof replyNotes> => ({
  tags: Array.isArray(turn.signals.tags) ? turn.signals.tags : [],
  comment: nullableRedacted(typeof turn.signals.comment === 'string' ? turn.signals.comment : null),
});

const nullableRedacted = (text: string | null) => (text === null ? null : redactText(text));
