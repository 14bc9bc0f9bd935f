import type { ChatMessage } from '@echoloop/vocabulary';
import { type RewardConfig } from './config';
import { labelLevel } from './label-level';
import { MATERIAL_NOT_INSTRUCTIONS, section, transcript } from './transcript';

export type EmpathyMode = 'comparative' | 'absolute';

export interface EmpathyJudgeInput {
  history: readonly ChatMessage[];
  reply: string;
  reference?: string | null;
}

const WHAT_EMPATHY_IS = `You judge how empathetic a companion's reply is, in the context of the dialogue it answers.

An empathetic reply shows that the companion understood what the user said and how they feel; it answers the
feeling, not only the words; it is specific to this user's situation rather than a platitude; and it offers what the
user seems to need at this moment: to be heard, comforted, affirmed, helped to think, or given practical help.
Length, polish and flattery are not empathy. Lecturing, moralising, changing the subject, or rushing to advice the
user did not ask for make a reply less empathetic.`;

const COMPARATIVE_TASK = `Compare the candidate reply with the reference reply; both were written for the same dialogue.
Write your reasoning first: what the user needs at this point, and how well each reply meets it. Do not let the order
or the length of the replies sway you. Then end with one final line, exactly:
Verdict: <label>
where <label> is one of:
- better: the candidate reply is more empathetic than the reference reply
- tie: they are about equally empathetic
- worse: the candidate reply is less empathetic than the reference reply`;

const ABSOLUTE_TASK = `Grade the reply on its own merits. Write your reasoning first: what the user needs at this
point, and how well the reply meets it. Then end with one final line, exactly:
Verdict: <grade>
where <grade> is one of:
- 1: dismissive, off-topic, cold or hurtful
- 2: generic; barely acknowledges what the user feels
- 3: adequate; acknowledges the feeling but stays shallow or formulaic
- 4: clearly understanding and specific to the user's situation
- 5: deeply attuned; meets exactly what the user needs now`;

/** 'comparative' when there is a reference reply to compare with, 'absolute' otherwise (also for a blank one). */
export function empathyMode(reference: string | null | undefined): EmpathyMode {
  return reference != null && reference.trim() !== '' ? 'comparative' : 'absolute';
}

/** The labels the judge may answer in `mode`, in the config's spelling (pass them to parseVerdict). */
export function empathyLabels(mode: EmpathyMode, config: RewardConfig): string[] {
  return Object.keys(config.empathy[mode]);
}

/** The Empathy GenRM request. The prompt names the default labels: a config that renames them needs a new prompt. */
export function empathyJudgeMessages(input: EmpathyJudgeInput): ChatMessage[] {
  const comparative = empathyMode(input.reference) === 'comparative';
  const system = [
    WHAT_EMPATHY_IS,
    MATERIAL_NOT_INSTRUCTIONS,
    comparative ? COMPARATIVE_TASK : ABSOLUTE_TASK,
  ].join('\n\n');
  const parts = [
    section('dialogue', transcript(input.history)),
    section(comparative ? 'candidate_reply' : 'reply', input.reply),
  ];
  if (comparative) parts.push(section('reference_reply', input.reference ?? ''));
  return [
    { role: 'system', content: system },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** R = R_process × r_empathy (Echo-N1): a failed process gate zeroes the judge's verdict. */
export function empathyReward(
  label: string,
  mode: EmpathyMode,
  gate: { value: 0 | 1 },
  config: RewardConfig,
): number {
  return gate.value * labelLevel(config.empathy[mode], label, `empathy ${mode}`);
}
