import { HIDDEN_NEED_DESCRIPTIONS, type HiddenNeed, type SentientProfile } from './profile';

export interface ProfileCheckOptions {
  /** Names already in use; compared ignoring case and punctuation. */
  existingNames?: Iterable<string>;
}

export interface ProfileProblem {
  code: 'leaks_hidden_need' | 'same_reactions' | 'placeholder' | 'implausible_age' | 'name_taken';
  message: string;
}

const MIN_AGE = 13;
const MAX_AGE = 95;

/**
 * What a schema cannot see in a generated profile: a first message that gives the hidden need away, reaction levels
 * that do not differ, placeholder text, an implausible age, a name already taken. Each message says what to fix.
 */
export function profileProblems(
  profile: SentientProfile,
  options: ProfileCheckOptions = {},
): ProfileProblem[] {
  const problems: ProfileProblem[] = [];
  const leak = hiddenNeedLeak(profile.firstMessage ?? '', profile.hiddenNeed);
  if (leak) problems.push({ code: 'leaks_hidden_need', message: leak });
  const { high, medium, low } = profile.scene.reactions;
  const levels = [
    ['high', high],
    ['medium', medium],
    ['low', low],
  ] as const;
  levels.forEach(([name, value], i) => {
    const same = levels.slice(i + 1).find(([, other]) => words(other) === words(value));
    if (same)
      problems.push({
        code: 'same_reactions',
        message: `scene.reactions.${name} and scene.reactions.${same[0]} say the same thing: each mood level needs its own behaviour`,
      });
  });
  for (const [path, value] of stringFields(profile)) {
    if (isPlaceholder(value))
      problems.push({
        code: 'placeholder',
        message: `${path} is a placeholder (${JSON.stringify(value.trim())}): write real content`,
      });
  }
  const { age, name } = profile.persona;
  if (age < MIN_AGE || age > MAX_AGE)
    problems.push({
      code: 'implausible_age',
      message: `persona.age ${age} is not plausible: use an age from ${MIN_AGE} to ${MAX_AGE}`,
    });
  if ([...(options.existingNames ?? [])].some((used) => words(used) === words(name)))
    problems.push({
      code: 'name_taken',
      message: `persona.name "${name}" is already used by another profile: choose a different name`,
    });
  return problems;
}

/** Lower case, pronouns folded to one person (the descriptions say "you", the person says "I"), words only. */
function words(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .map((word) => PRONOUNS[word] ?? word)
    .join(' ');
}

const PRONOUNS: Record<string, string> = {
  i: 'you',
  me: 'you',
  my: 'your',
  mine: 'yours',
  myself: 'yourself',
};

/** Words too common to count towards a quote of a description. */
const COMMON_WORDS = new Set(
  (
    'a an the and or but to of in on for with from at by it its that this what why how who they them their ' +
    'other people person someone you your yourself want wants be is are was were do did not no get out up would'
  ).split(' '),
);

const QUOTE_WORDS = 6;
const QUOTE_CONTENT_WORDS = 2;

/** Why a first message gives the hidden need away: its name, or a run of words from its description. */
function hiddenNeedLeak(message: string, need: HiddenNeed): string | undefined {
  const said = ` ${words(message)} `;
  const name = words(need);
  if (said.includes(` ${name} `))
    return `firstMessage names the hidden need ("${need.replaceAll('-', ' ')}"): let the need show through the situation instead`;
  const description = words(HIDDEN_NEED_DESCRIPTIONS[need]).split(' ');
  const original = HIDDEN_NEED_DESCRIPTIONS[need].split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  for (let i = 0; i + QUOTE_WORDS <= description.length; i++) {
    const run = description.slice(i, i + QUOTE_WORDS);
    const content = run.filter((word) => !COMMON_WORDS.has(word)).length;
    if (content >= QUOTE_CONTENT_WORDS && said.includes(` ${run.join(' ')} `))
      return `firstMessage quotes the hidden need's description ("${original.slice(i, i + QUOTE_WORDS).join(' ')}"): the person must not say outright what they want`;
  }
  return undefined;
}

function stringFields(profile: SentientProfile): [string, string][] {
  const { persona, scene } = profile;
  return [
    ['persona.name', persona.name],
    ['persona.gender', persona.gender],
    ['persona.occupation', persona.occupation],
    ...persona.hobbies.map((hobby, i): [string, string] => [`persona.hobbies[${i}]`, hobby]),
    ['persona.habits', persona.habits],
    ['persona.speakingStyle', persona.speakingStyle],
    ['scene.background', scene.background],
    ['scene.conflict', scene.conflict],
    ['scene.difficulties', scene.difficulties],
    ['scene.currentState', scene.currentState],
    ['scene.reactions.high', scene.reactions.high],
    ['scene.reactions.medium', scene.reactions.medium],
    ['scene.reactions.low', scene.reactions.low],
    ['scene.raisesEmotion', scene.raisesEmotion],
    ['scene.lowersEmotion', scene.lowersEmotion],
    ['firstMessage', profile.firstMessage ?? ''],
  ];
}

const PLACEHOLDER_WHOLE =
  /^(?:\.{2,}|…|-+|\?+|n\/?a|none|null|undefined|unknown|tbd|tbc|todo|placeholder|string|text|example|xxx+)$/i;
const PLACEHOLDER_MARK = /\bTODO\b|\bTBD\b|\bFIXME\b/;
const PLACEHOLDER_TEMPLATE = /lorem ipsum|\[insert|<insert|\{\{/i;

function isPlaceholder(value: string): boolean {
  // One full stop is part of a sentence ("N/A."); two or more are an ellipsis.
  const trimmed = value.trim().replace(/(?<!\.)\.$/, '');
  return PLACEHOLDER_WHOLE.test(trimmed) || PLACEHOLDER_MARK.test(value) || PLACEHOLDER_TEMPLATE.test(value);
}
