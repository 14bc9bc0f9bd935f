import { type ObservationDraft } from '../observation';
import { type AgeBand, type Gender } from '../taxonomy';
import { type ScannedText } from './scan';

/*
 * Age band and gender come only from what the user says about themselves, in the first person and the present:
 * "I'm 34", "I am a 34 year old woman", "as a woman, ...", "I (34F)", "tengo 34 años". Anything else ("my mom is
 * 50", "when I was 15", "I'm 5 minutes away", "dressed as a man") sets nothing: these fields are never guessed.
 */

const I_AM = "(?:i'm|i am|im)";
/** What may follow a bare age for it to be an age: the end of the clause or a joining word, not "minutes". */
const AGE_END = '(?=\\s*$|\\s*[.,!?;:)]|\\s+(?:and|but|so|now|too|myself|already|btw|lol|haha)\\b)';

const AGE_PATTERNS: readonly RegExp[] = [
  new RegExp(
    `\\b${I_AM}\\s+(?:only\\s+|just\\s+|now\\s+)?(?:an?\\s+)?(\\d{2})[\\s-]*(?:years?|yrs?)[\\s-]*old\\b`,
  ),
  new RegExp(`\\b${I_AM}\\s+(?:only\\s+|just\\s+|now\\s+)?(\\d{2})\\s*y/?o\\b`),
  new RegExp(`\\b${I_AM}\\s+(?:only\\s+|just\\s+|now\\s+)?(\\d{2})${AGE_END}`),
  new RegExp(
    `\\bi\\s+(?:just\\s+)?turned\\s+(\\d{2})(?=\\s*$|\\s*[.,!?;:)]|\\s+(?:and|but|so|today|yesterday|last|this|on)\\b)`,
  ),
  /\btengo\s+(\d{2})\s+años(?!\s+(?:de|trabajando|en|con)\b)/,
  /\btenho\s+(\d{2})\s+anos(?!\s+(?:de|trabalhando|em|com)\b)/,
  /\bj'ai\s+(\d{2})\s+ans\b(?!\s*d')/,
  /\bho\s+(\d{2})\s+anni(?!\s+(?:di|che)\b)/,
  /\bich\s+bin\s+(\d{2})(?:\s+jahre(?:\s+alt)?)?(?=\s*$|\s*[.,!?;:)]|\s+(?:und|aber)\b)/,
  /(?<![\p{L}])мне\s+(\d{2})\s+(?:год|года|лет)(?![\p{L}])/u,
];

const DECADE =
  /\b(?:i'm|i am|im)\s+(?:in\s+my\s+)?(?:early\s+|mid\s+|late\s+)?(twenties|thirties|forties|fifties|sixties|seventies|eighties|20s|30s|40s|50s|60s|70s|80s)\b/;
const TEEN = /\b(?:i'm|i am|im)\s+(?:just\s+|only\s+|still\s+)?an?\s+teen(?:ager)?\b/;

/** Reddit style "I (34F)", "me (F34)": age and gender together. */
const AGE_GENDER_TAG = /\b(?:i|me)\s*\(\s*(?:(\d{2})\s*([mf])|([mf])\s*(\d{2}))\s*\)/;
const GENDER_TAG = /\b(?:i|me)\s*\(\s*([mf])\s*\)/;

const GENDER_NOUNS: Readonly<Record<string, Gender>> = {
  woman: 'female',
  girl: 'female',
  lady: 'female',
  gal: 'female',
  female: 'female',
  mom: 'female',
  mum: 'female',
  mother: 'female',
  man: 'male',
  guy: 'male',
  boy: 'male',
  dude: 'male',
  male: 'male',
  gentleman: 'male',
  dad: 'male',
  father: 'male',
  'non-binary': 'non-binary',
  nonbinary: 'non-binary',
  enby: 'non-binary',
  mujer: 'female',
  chica: 'female',
  hombre: 'male',
  chico: 'male',
  femme: 'female',
  fille: 'female',
  homme: 'male',
  mec: 'male',
  garçon: 'male',
  frau: 'female',
  mädchen: 'female',
  mann: 'male',
  junge: 'male',
  mulher: 'female',
  menina: 'female',
  garota: 'female',
  homem: 'male',
  rapaz: 'male',
  menino: 'male',
  donna: 'female',
  ragazza: 'female',
  uomo: 'male',
  ragazzo: 'male',
  женщина: 'female',
  девушка: 'female',
  мужчина: 'male',
  парень: 'male',
};

/** Words allowed between "I'm a" and the noun; a closed list, so "I'm seeing a man" never matches. */
const DESCRIBERS =
  '(?:young|old|older|younger|single|married|divorced|widowed|working|grown|middle[\\s-]aged|straight|gay|lesbian|bi|queer|trans|transgender|cis|black|white|asian|latina|latino|new|proud|busy|tired|stay[\\s-]at[\\s-]home|\\d{2}[\\s-]*(?:years?|yrs?)[\\s-]*old|\\d{2}[\\s-]*y/?o)';
const ENGLISH_NOUN =
  '(woman|girl|lady|gal|female|mom|mum|mother|man|guy|boy|dude|male|gentleman|dad|father|non-binary|nonbinary|enby)';
const I_AM_A = new RegExp(`\\b${I_AM}\\s+(?:an?\\s+)?(?:${DESCRIBERS}\\s+){0,2}${ENGLISH_NOUN}\\b`);
/** "As a woman, ..." at the start of a clause; "dressed as a man" is not about the speaker. */
const AS_A = new RegExp(
  `(?:^|[.!?,;:]\\s*|\\b(?:and|but|because|so)\\s+)as\\s+an?\\s+(?:${DESCRIBERS}\\s+){0,2}${ENGLISH_NOUN}\\b`,
);
const OTHER_LANGUAGES_I_AM_A =
  /(?<![\p{L}])(?:(?<!no\s)soy\s+(?:una?\s+)?(mujer|chica|hombre|chico)|je\s+suis\s+(?:une?\s+)?(femme|fille|homme|mec|garçon)|ich\s+bin\s+(?:eine?\s+)?(frau|mädchen|mann|junge)|(?<!não\s)sou\s+(?:uma?\s+)?(mulher|menina|garota|homem|rapaz|menino)|(?<!non\s)sono\s+(?:una?\s+|un\s+)?(donna|ragazza|uomo|ragazzo)|я\s+(женщина|девушка|мужчина|парень))(?![\p{L}])/u;

/** Explicit first-person statements of age and gender, as explicit observations. */
export function selfStatementObservations(scan: ScannedText, out: ObservationDraft[]): void {
  const { lower } = scan;
  const tagged = AGE_GENDER_TAG.exec(lower);
  const age = statedAgeBand(lower, tagged);
  if (age) out.push({ field: 'ageBand', value: age.band, weight: age.weight, explicit: true });
  const gender = statedGender(lower, tagged);
  if (gender) out.push({ field: 'gender', value: gender, weight: 1, explicit: true });
}

function statedAgeBand(
  lower: string,
  tagged: RegExpExecArray | null,
): { band: AgeBand; weight: number } | undefined {
  if (tagged) return { band: ageBand(Number(tagged[1] ?? tagged[4])), weight: 1 };
  for (const pattern of AGE_PATTERNS) {
    const match = pattern.exec(lower);
    if (match?.[1] !== undefined) return { band: ageBand(Number(match[1])), weight: 1 };
  }
  const decade = DECADE.exec(lower)?.[1];
  if (decade !== undefined) return { band: decadeBand(decade), weight: 1 };
  // "Teenager" spans 13 to 19: mostly the 13-17 band, so it counts a little less.
  if (TEEN.test(lower)) return { band: '13-17', weight: 0.8 };
  return undefined;
}

function statedGender(lower: string, tagged: RegExpExecArray | null): Gender | undefined {
  const letter = tagged ? (tagged[2] ?? tagged[3]) : GENDER_TAG.exec(lower)?.[1];
  if (letter !== undefined) return letter === 'f' ? 'female' : 'male';
  const noun =
    I_AM_A.exec(lower)?.[1] ??
    AS_A.exec(lower)?.[1] ??
    OTHER_LANGUAGES_I_AM_A.exec(lower)
      ?.slice(1)
      .find((group) => group !== undefined);
  return noun === undefined ? undefined : GENDER_NOUNS[noun];
}

function ageBand(age: number): AgeBand {
  if (age < 13) return 'under-13';
  if (age < 18) return '13-17';
  if (age < 30) return '18-29';
  if (age < 40) return '30-39';
  if (age < 50) return '40-49';
  if (age < 60) return '50-59';
  if (age < 70) return '60-69';
  return '70-plus';
}

const DECADE_WORDS: Readonly<Record<string, number>> = {
  twenties: 20,
  thirties: 30,
  forties: 40,
  fifties: 50,
  sixties: 60,
  seventies: 70,
  eighties: 80,
};

/** "thirties" or "30s" as the band of the decade's first year. */
function decadeBand(decade: string): AgeBand {
  return ageBand(DECADE_WORDS[decade] ?? Number.parseInt(decade, 10));
}
