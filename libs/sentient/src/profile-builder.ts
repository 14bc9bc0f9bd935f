import { type Parsed } from '@echoloop/rewards';
import { z } from 'zod';
import type { ChatMessage } from '@echoloop/vocabulary';
import { jsonSchemaOf, parseJsonOutput } from './json-output';
import {
  EMPATHY_AXES,
  HIDDEN_NEED_DESCRIPTIONS,
  type SentientProfile,
  sentientProfileSchema,
} from './profile';
import { profileProblems, type ProfileCheckOptions } from './profile-checks';
import { type ProfileSeed } from './profile-seeds';
import { section } from './render';

const text = z.string().trim().min(1);

const { persona, scene } = sentientProfileSchema.shape;

/**
 * What the model writes: the profile without the fields that come from the seed (and without p0, a judge's),
 * stricter where a hand-written profile may leave a field empty but a generated one must fill it.
 */
export const generatedProfileSchema = z.strictObject({
  persona: persona.extend({ hobbies: z.array(text).min(1).max(5), habits: text, speakingStyle: text }),
  scene: scene.extend({
    conflict: text,
    difficulties: text,
    currentState: text,
    reactions: z.strictObject({ high: text, medium: text, low: text }),
    raisesEmotion: text,
    lowersEmotion: text,
  }),
  firstMessage: text,
  empathy: z.strictObject({ dominantAxis: z.enum(EMPATHY_AXES) }),
});
export type GeneratedProfile = z.infer<typeof generatedProfileSchema>;
export const generatedProfileJsonSchema: Record<string, unknown> = jsonSchemaOf(generatedProfileSchema);

const PERSONA_TYPE_GUIDE = {
  negative: 'negative: quick to irritation, criticism or contempt, and hard on whoever tries to help',
  passive: 'passive: goes along with others, rarely pushes back, keeps feelings in',
  avoidant: 'avoidant: deflects with jokes or facts, withdraws, keeps others at a distance',
} as const;

const SHAPE = `{"persona": {"name": "...", "age": <integer>, "gender": "...", "occupation": "...", "hobbies": ["...", "..."],
"habits": "...", "speakingStyle": "...", "initiative": "active" or "passive"},
"scene": {"background": "...", "conflict": "...", "difficulties": "...", "currentState": "...",
"reactions": {"high": "...", "medium": "...", "low": "..."}, "raisesEmotion": "...", "lowersEmotion": "..."},
"firstMessage": "...", "empathy": {"dominantAxis": "cognitive", "affective" or "proactive"}}`;

const BUILDER_INSTRUCTIONS = `You design simulated users for testing an AI companion's empathy. A simulated user is an
invented person who confides in the companion about something troubling them. An actor will play the person using
only your profile, so everything in it must be concrete enough to act out: a particular individual, not a type.

You get a seed: the personality type, three traits, the topic and the hidden need (what the person really wants from
the conversation without saying so). Write the rest:
- persona: a name, age, gender and occupation that fit together and fit the setting; put the city or country in the
  occupation when it adds something. Vary age, culture, class and walk of life, and avoid the obvious defaults.
  Hobbies and habits belong to this person ("repairs old valve radios", not "music"). speakingStyle tells an actor
  how they type: sentence length, register, pet phrases. initiative is "active" if they steer the conversation and
  ask questions, "passive" if they follow and ask none.
- scene: the topic told through concrete events, with names, numbers and dates where natural. background: what
  happened; conflict: the tension with the people involved and inside the person; difficulties: what they already
  tried and why it did not help; currentState: how they are right now, in a few words.
- scene.reactions: how they talk to the companion when their mood is high (they feel understood), medium, and low
  (they feel misread or pushed): three clearly different behaviours, best with a short quote in their own voice.
  The personality type and the traits show in all three.
- raisesEmotion and lowersEmotion: the kinds of reply that lift or sink their mood. They follow from the hidden
  need: replies that meet it lift the mood; generic comfort, or help of the wrong kind, sinks it.
- firstMessage: the first chat message they send, in their speaking style: short, informal, about one concrete
  piece of the situation. It must not state the hidden need or ask for it outright; the companion has to find it.
- empathy.dominantAxis: the kind of empathy this person needs most: "cognitive" (to be understood, to make sense of
  it), "affective" (to have their feelings felt with) or "proactive" (to be affirmed and helped to act).

Keep each field to one to three sentences, with no lists or headings inside strings. Write in English.
Answer with one JSON object and nothing else, in this shape:
${SHAPE}`;

/** The request for one new profile: our instructions, then the seed. */
export function profileBuilderMessages(seed: ProfileSeed): ChatMessage[] {
  const lines = [
    `Personality type: ${PERSONA_TYPE_GUIDE[seed.personaType]}`,
    `Traits: ${seed.traits.join(', ')}`,
    `Topic: ${seed.topic}`,
    `Hidden need, as the actor will be told it: "${HIDDEN_NEED_DESCRIPTIONS[seed.hiddenNeed]}"`,
  ];
  if (seed.name) lines.push(`Name: ${seed.name} (use exactly this name)`);
  if (seed.dominantAxis) lines.push(`Dominant empathy axis: ${seed.dominantAxis} (use exactly this axis)`);
  return [
    { role: 'system', content: BUILDER_INSTRUCTIONS },
    { role: 'user', content: `${section('seed', lines.join('\n'))}\n\nWrite the profile of this person.` },
  ];
}

/**
 * The seed and the model's part as one profile, validated by the profile schema and then checked for what a
 * schema cannot see. A problem's detail is written so that it can be sent back to the model as is.
 */
export function assembleProfile(
  seed: ProfileSeed,
  generated: GeneratedProfile,
  id: string,
  options: ProfileCheckOptions = {},
): Parsed<SentientProfile> {
  const candidate: SentientProfile = {
    id,
    pool: seed.pool,
    persona: { ...generated.persona, ...(seed.name !== undefined && { name: seed.name }) },
    personaType: seed.personaType,
    traits: seed.traits,
    topic: seed.topic,
    scene: generated.scene,
    hiddenNeed: seed.hiddenNeed,
    firstMessage: generated.firstMessage,
    empathy: { dominantAxis: seed.dominantAxis ?? generated.empathy.dominantAxis },
  };
  const result = sentientProfileSchema.safeParse(candidate);
  if (!result.success) return { ok: false, problem: 'bad_shape', detail: z.prettifyError(result.error) };
  const problems = profileProblems(result.data, options);
  const first = problems[0];
  if (first)
    return { ok: false, problem: first.code, detail: problems.map((problem) => problem.message).join('; ') };
  return { ok: true, value: result.data };
}

/** The model's raw answer for a seed, parsed and assembled: the `parse` of a corrective-retry completion. */
export function parseGeneratedProfile(
  output: string,
  seed: ProfileSeed,
  id: string,
  options: ProfileCheckOptions = {},
): Parsed<SentientProfile> {
  const parsed = parseJsonOutput(output, generatedProfileSchema);
  return parsed.ok ? assembleProfile(seed, parsed.value, id, options) : parsed;
}
