import { type ObservationDraft } from '../observation';
import { type Language } from '../taxonomy';
import { type ScannedText } from './scan';
import { wordSet } from './words';

const LATIN_LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it'] as const satisfies readonly Language[];
type LatinLanguage = (typeof LATIN_LANGUAGES)[number];

/** Frequent function words. A word several languages share splits its vote between them. */
const STOPWORDS: Readonly<Record<LatinLanguage, ReadonlySet<string>>> = {
  en: wordSet(`the and is are was were you your i i'm im it's it to of that this what with have has for just
    don't dont my me not but so be do can how why about know really feel think because would there they he she
    we if at on like get will am been today want need`),
  es: wordSet(`el la los las que y es está estoy estás pero muy para por con una un mi qué cómo yo tengo hoy
    también porque cuando eso esto bien hola gracias nada todo algo sí siento quiero puedo tú del al se lo le me
    te no ya hay ser soy más como pues entonces ahora`),
  fr: wordSet(`le la les de des du et est je j'ai tu il elle nous vous pas ne que qui un une pour avec mais
    suis c'est ça très moi toi mon ma mes on au aux ce cette dans sur bien oui non merci aussi parce quand comme
    fait être avoir`),
  de: wordSet(`der die das und ist ich nicht ein eine zu mit es du auch aber was wie bin mein meine sehr ja
    nein dass den dem sich auf für von bei noch schon wenn weil habe hab heute gut danke mir mich dir dich wir
    sie kann will jetzt`),
  pt: wordSet(`o os as de do da dos das que e é não um uma com para mas eu você vc muito estou tô meu minha
    isso isto tá está ele ela nós em no na por se me te também porque quando hoje obrigado obrigada sim bem ser
    tenho quero agora então como mais`),
  it: wordSet(`il lo la gli le di che e è non un una per con ma sono io mi ti molto cosa anche ho hai ha del
    della nel perché però questo questa quello sei siamo oggi bene grazie ciao sì mio mia tu come quando adesso
    ora voglio posso più`),
};

const VOTERS = buildVoters();

/** Letters one Latin-script language uses and the others here do not. */
const DISTINCTIVE_LETTERS: readonly (readonly [RegExp, LatinLanguage])[] = [
  [/[ñ¿¡]/, 'es'],
  [/[ãõ]/, 'pt'],
  [/[ßäö]/, 'de'],
  [/[œêâîûùë]/, 'fr'],
  [/[ìò]/, 'it'],
];
const DISTINCTIVE_LETTER_VOTES = 2;

/** Letters in an unspaced or non-Latin script that make the language certain enough for full weight. */
const SCRIPT_FULL_WEIGHT_CHARS = 6;
/** Stopword votes that make a Latin-script guess worth a full observation. */
const LATIN_FULL_WEIGHT_VOTES = 4;

/** The message's language: by script where the script decides, by function words among Latin languages. */
export function languageObservation(scan: ScannedText, out: ObservationDraft[]): void {
  const byScript = languageByScript(scan);
  if (byScript) {
    const [value, chars] = byScript;
    out.push({ field: 'language', value, weight: 0.9 * Math.min(1, chars / SCRIPT_FULL_WEIGHT_CHARS) });
    return;
  }
  const votes: Record<LatinLanguage, number> = { en: 0, es: 0, fr: 0, de: 0, pt: 0, it: 0 };
  for (const token of scan.tokens) {
    const voters = VOTERS.get(token);
    if (!voters) continue;
    for (const language of voters) votes[language] += 1 / voters.length;
  }
  for (const [letters, language] of DISTINCTIVE_LETTERS) {
    if (letters.test(scan.lower)) votes[language] += DISTINCTIVE_LETTER_VOTES;
  }
  let best: LatinLanguage = 'en';
  let bestVotes = 0;
  let runnerUpVotes = 0;
  for (const language of LATIN_LANGUAGES) {
    const count = votes[language];
    if (count > bestVotes) {
      runnerUpVotes = bestVotes;
      bestVotes = count;
      best = language;
    } else if (count > runnerUpVotes) {
      runnerUpVotes = count;
    }
  }
  if (bestVotes < 1 || bestVotes === runnerUpVotes) return;
  const margin = (bestVotes - runnerUpVotes) / bestVotes;
  out.push({
    field: 'language',
    value: best,
    weight: Math.min(1, bestVotes / LATIN_FULL_WEIGHT_VOTES) * margin,
  });
}

function languageByScript(scan: ScannedText): readonly [Language, number] | undefined {
  const s = scan.scripts;
  const nonLatin = s.han + s.kana + s.hangul + s.cyrillic + s.arabic + s.devanagari;
  if (nonLatin === 0 || nonLatin < s.latin) return undefined;
  // Japanese mixes kanji with kana; any kana makes it Japanese rather than Chinese.
  if (s.kana > 0) return ['ja', s.kana + s.han];
  if (s.hangul > 0 && s.hangul >= s.han) return ['ko', s.hangul];
  if (s.han > 0) return ['zh', s.han];
  if (s.cyrillic > 0) return [s.ukrainian > 0 ? 'uk' : 'ru', s.cyrillic];
  if (s.arabic > 0) return ['ar', s.arabic];
  return ['hi', s.devanagari];
}

function buildVoters(): ReadonlyMap<string, LatinLanguage[]> {
  const voters = new Map<string, LatinLanguage[]>();
  for (const language of LATIN_LANGUAGES) {
    for (const word of STOPWORDS[language]) voters.set(word, [...(voters.get(word) ?? []), language]);
  }
  return voters;
}
