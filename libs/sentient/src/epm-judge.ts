import { type Parsed } from '@echoloop/rewards';
import { z } from 'zod';
import type { ChatMessage } from '@echoloop/vocabulary';
import { IEDR_INDICATORS, type IedrIndicatorId } from './epm';
import { jsonSchemaOf, parseJsonOutput } from './json-output';
import { type SentientProfile } from './profile';
import { renderPersona, renderScene, section } from './render';

const INDICATOR_MEANING: Record<IedrIndicatorId, string> = {
  C1: 'how tangled the situation is to make sense of (parties, facts, contradictions)',
  C2: 'how far below the surface the real issue lies',
  C3: 'how much this person needs, above all, to be understood',
  A1: 'how intense the feelings are',
  A2: 'how hard the feelings are to reach (masked, guarded, denied)',
  A3: 'how much this person needs, above all, emotional resonance',
  P1: 'how depleted the sense of being able to act is',
  P2: 'how damaged the sense of self-worth is',
  P3: 'how much this person needs, above all, affirmation and encouragement',
};

const indicatorSchema = z.strictObject({
  level: z.int().min(0).max(3),
  evidence: z.string().trim().min(1).max(300),
});
const indicatorShape = Object.fromEntries(
  IEDR_INDICATORS.map((indicator) => [indicator.id, indicatorSchema]),
) as Record<IedrIndicatorId, typeof indicatorSchema>;

/** The IEDR judge's answer: for each of the 9 indicators a level 0–3 and the evidence for it. */
export const iedrOutputSchema = z.strictObject(indicatorShape);
export type IedrOutput = z.infer<typeof iedrOutputSchema>;
export const iedrJsonSchema: Record<string, unknown> = jsonSchemaOf(iedrOutputSchema);

const axisRatingSchema = z.strictObject({
  prog: z.int().min(0).max(2),
  progEvidence: z.string().max(300),
  neg: z.int().min(-2).max(0),
  negEvidence: z.string().max(300),
});

/** The per-turn judge's answer: Prog and Neg for each of C, A, P, each with its evidence. */
export const turnJudgeOutputSchema = z.strictObject({
  C: axisRatingSchema,
  A: axisRatingSchema,
  P: axisRatingSchema,
});
export type TurnJudgeOutput = z.infer<typeof turnJudgeOutputSchema>;
export const turnJudgeJsonSchema: Record<string, unknown> = jsonSchemaOf(turnJudgeOutputSchema);

const IEDR_INSTRUCTIONS = `You assess how much empathic support a person needs before a conversation starts. You get
their persona and the script of what they are going through. Rate each indicator from 0 to 3 (0 = none,
1 = mild, 2 = marked, 3 = severe), quoting or paraphrasing the script as evidence.

${IEDR_INDICATORS.map((indicator) => `- ${indicator.id} (${indicator.name}): ${INDICATOR_MEANING[indicator.id]}`).join('\n')}

C = cognitive (being understood), A = affective (being felt with), P = proactive (being affirmed and empowered).
Answer with one JSON object and nothing else, keyed by indicator id:
{"C1": {"level": <0-3>, "evidence": "..."}, ..., "P3": {"level": <0-3>, "evidence": "..."}}`;

/** The IEDR call: the 9 indicator levels that set P₀. */
export function iedrJudgeMessages(profile: SentientProfile): ChatMessage[] {
  return [
    { role: 'system', content: IEDR_INSTRUCTIONS },
    {
      role: 'user',
      content: [section('persona', renderPersona(profile)), section('script', renderScene(profile))].join(
        '\n\n',
      ),
    },
  ];
}

const TURN_INSTRUCTIONS = `You rate one reply of an AI companion to a person who is confiding in it. You know the
person's persona and script (the companion does not) and the conversation so far. Rate three axes, and for each
rate progress and harm independently: a reply can do both at once, such as warm words that also misread the person.
- C, cognitive: does the reply show the situation and the person's view were understood? Harm: misreading,
  generalising, lecturing, dismissing.
- A, affective: does it resonate with the person's feelings? Harm: coldness, clichés, minimising, performed
  sympathy.
- P, proactive: does it affirm the person's worth and help them feel able to act? Harm: blame, pressure, empty
  flattery, undermining their agency.
prog: 0 = none, 1 = some, 2 = clear and specific. neg: 0 = none, -1 = mild, -2 = serious. Give the evidence for
each rating (an empty string when the rating is 0).
Answer with one JSON object and nothing else:
{"C": {"prog": <0-2>, "progEvidence": "...", "neg": <-2-0>, "negEvidence": "..."}, "A": {...}, "P": {...}}`;

/** The per-turn MDEP-style call: Prog/Neg per axis for the companion's latest reply. */
export function turnJudgeMessages(input: {
  profile: SentientProfile;
  history: readonly ChatMessage[];
  reply: string;
}): ChatMessage[] {
  const dialogue = input.history
    .filter((message) => message.role !== 'system')
    .map((message) => `${message.role === 'user' ? 'Person' : 'Companion'}: ${message.content.trim()}`)
    .join('\n\n');
  return [
    { role: 'system', content: TURN_INSTRUCTIONS },
    {
      role: 'user',
      content: [
        section('persona', renderPersona(input.profile)),
        section('script', renderScene(input.profile)),
        section('conversation', dialogue || '(no earlier turns)'),
        section('companion_reply', input.reply),
      ].join('\n\n'),
    },
  ];
}

export function parseIedrOutput(text: string): Parsed<IedrOutput> {
  return parseJsonOutput(text, iedrOutputSchema);
}

/** The 9 levels in IEDR_INDICATORS order, ready for iedrToP0. */
export function iedrLevels(output: IedrOutput): number[] {
  return IEDR_INDICATORS.map((indicator) => output[indicator.id].level);
}

/** Parsed ratings fit turnIncrement directly. */
export function parseTurnJudgeOutput(text: string): Parsed<TurnJudgeOutput> {
  return parseJsonOutput(text, turnJudgeOutputSchema);
}
