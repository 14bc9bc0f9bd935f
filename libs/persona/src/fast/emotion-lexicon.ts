import { type EmotionLabel } from '../taxonomy';
import { wholeWords, wordSet } from './words';

type FeltEmotion = Exclude<EmotionLabel, 'neutral'>;
const FELT_EMOTIONS = [
  'joy',
  'sadness',
  'anger',
  'fear',
  'anxiety',
  'loneliness',
  'surprise',
] as const satisfies readonly FeltEmotion[];

/** Where each label sits in valence (-1..1) and arousal (0..1), after Russell's circumplex. */
export const EMOTION_PROTOTYPES: Readonly<Record<EmotionLabel, { valence: number; arousal: number }>> = {
  neutral: { valence: 0, arousal: 0.3 },
  joy: { valence: 0.8, arousal: 0.6 },
  sadness: { valence: -0.7, arousal: 0.25 },
  anger: { valence: -0.7, arousal: 0.85 },
  fear: { valence: -0.8, arousal: 0.8 },
  anxiety: { valence: -0.55, arousal: 0.7 },
  loneliness: { valence: -0.6, arousal: 0.25 },
  surprise: { valence: 0.2, arousal: 0.85 },
};

/** Words that name a feeling, in en, es, fr, de, pt, it, ru. Strong ones count 1, weak ones 0.5. */
const STRONG_WORDS: Readonly<Record<FeltEmotion, string>> = {
  joy: `happy happier happiest glad joyful excited thrilled delighted ecstatic elated cheerful overjoyed stoked
    grateful thankful relieved proud yay hooray feliz felices contento contenta alegre emocionado emocionada
    agradecido agradecida orgulloso orgullosa aliviado aliviada heureux heureuse contente ravi ravie joyeux
    joyeuse reconnaissant reconnaissante fier fière soulagé soulagée glücklich froh fröhlich dankbar stolz
    erleichtert begeistert animado animada grato grata orgulhoso orgulhosa felice allegro allegra orgoglioso
    orgogliosa sollevato sollevata счастлив счастлива рад рада радостно`,
  sadness: `sad sadder saddest unhappy depressed depressing miserable heartbroken devastated crying cried tears
    grief grieving hopeless gloomy upset disappointed triste tristes deprimido deprimida desanimado desanimada
    llorando lloré decepcionado decepcionada déprimé déprimée malheureux malheureuse pleure pleurer déçu déçue
    traurig deprimiert unglücklich weine enttäuscht chorando chorei depresso depressa infelice piango deluso
    delusa грустно грустный грустная печально плачу тоскливо`,
  anger: `angry mad furious pissed annoyed irritated frustrated frustrating hate hated livid outraged enraged
    resentful enojado enojada enfadado enfadada furioso furiosa molesto molesta odio harto harta fâché fâchée
    énervé énervée furieux furieuse agacé agacée déteste colère wütend sauer verärgert genervt hasse irritado
    irritada raiva odeio chateado chateada arrabbiato arrabbiata incazzato incazzata злой злая злюсь бесит
    бешусь ненавижу`,
  fear: `scared afraid terrified frightened fearful panicking horrified petrified miedo asustado asustada aterrado
    aterrada pánico peur effrayé effrayée terrifié terrifiée panique angst ängstlich erschrocken panik medo
    assustado assustada apavorado apavorada pânico paura spaventato spaventata terrorizzato terrorizzata panico
    страшно боюсь страх`,
  anxiety: `anxious worried worrying nervous stressed stressful overwhelmed tense uneasy restless overthinking
    insecure preocupado preocupada ansioso ansiosa nervioso nerviosa estresado estresada agobiado agobiada inquiet
    inquiète anxieux anxieuse nerveux nerveuse stressé stressée angoissé angoissée besorgt nervös gestresst
    überfordert nervoso nervosa estressado estressada preoccupato preoccupata stressato stressata тревожно
    волнуюсь переживаю нервничаю`,
  loneliness: `lonely loneliness isolated abandoned unwanted soledad solitario solitaria aislado aislada seul seule
    solitude isolé isolée einsam isoliert sozinho sozinha solidão isolado isolada solitudine isolato isolata
    одиноко одинок одинока одиночество`,
  surprise: `surprised shocked astonished amazed stunned sorprendido sorprendida surpris choqué choquée überrascht
    schockiert surpreso surpresa chocado chocada sorpreso scioccato scioccata удивлён удивлена`,
};

const WEAK_WORDS: Readonly<Record<FeltEmotion, string>> = {
  joy: `great amazing awesome wonderful fantastic love loved lovely fun enjoy enjoyed enjoying smiling laughing`,
  sadness: `hurt hurting empty cry`,
  anger: `annoying ugh`,
  fear: `fear`,
  anxiety: `worry stress nervously`,
  loneliness: `alone sola allein`,
  surprise: `wow whoa unexpected`,
};

export interface LexiconEntry {
  label: FeltEmotion;
  strength: number;
}

export const EMOTION_WORDS: ReadonlyMap<string, LexiconEntry> = buildLexicon();

/** Several-word expressions, English only; not subject to negation. */
export const EMOTION_PHRASES: readonly (readonly [RegExp, FeltEmotion])[] = [
  [wholeWords("fed up|can't stand|pissed off|sick of"), 'anger'],
  [wholeWords("freaking out|on edge|can't sleep|panic attack"), 'anxiety'],
  [wholeWords("burn(?:ed|t) out|falling apart|let down|broke my heart|can't stop crying"), 'sadness'],
  [wholeWords('over the moon|on cloud nine|best day'), 'joy'],
  [wholeWords('no one cares|nobody cares|all alone|so alone|feel alone|left out|no friends'), 'loneliness'],
];

/** Chinese, Japanese and Korean feeling words, matched inside unspaced text. 不开心 (not happy) is sadness. */
export const UNSPACED_EMOTIONS: readonly (readonly [RegExp, FeltEmotion])[] = [
  [/不开心|不高兴|难过|伤心|难受|沮丧|想哭|悲しい|辛い|つらい|슬퍼|슬프|우울/, 'sadness'],
  [/(?<![不没])(?:开心|高兴|快乐|幸福)|嬉しい|楽しい|幸せ|행복|기뻐|기쁘/, 'joy'],
  [/生气|愤怒|气死|ムカつく|腹が立|화나|짜증/, 'anger'],
  [/害怕|恐惧|怖い|こわい|무서/, 'fear'],
  [/焦虑|担心|紧张|压力|不安|心配|緊張|불안|걱정|긴장/, 'anxiety'],
  [/孤独|寂寞|寂しい|さみしい|외로/, 'loneliness'],
  [/惊讶|震惊|びっくり|놀랐|놀라/, 'surprise'],
];

export const EMOTION_EMOJI: ReadonlyMap<string, FeltEmotion> = new Map<string, FeltEmotion>([
  ...[...'😀😃😄😁😆😊🙂😍🥰😘😂🤣❤💕💖💗🎉🥳☺😇🤗'].map((emoji) => [emoji, 'joy'] as const),
  ...[':)', ':-)', ':D', '=)', 'xD', 'XD', ':P', ':p', '<3'].map((emoticon) => [emoticon, 'joy'] as const),
  ...[...'😢😭😞😔☹🙁💔😿😓🥺'].map((emoji) => [emoji, 'sadness'] as const),
  ...[':(', ':-(', ":'("].map((emoticon) => [emoticon, 'sadness'] as const),
  ...[...'😡😠🤬😤👿'].map((emoji) => [emoji, 'anger'] as const),
  ...[...'😨😱'].map((emoji) => [emoji, 'fear'] as const),
  ...[...'😰😟😥😬'].map((emoji) => [emoji, 'anxiety'] as const),
  ...[...'😮😯😲🤯😳'].map((emoji) => [emoji, 'surprise'] as const),
]);

export const NEGATORS =
  wordSet(`not no never cannot cant dont doesnt didnt isnt wasnt arent werent wont wouldnt
  couldnt shouldnt aint hardly barely nunca jamás tampoco ni pas jamais nicht kein keine keinen nie niemals não
  nem non mai né не ни никогда`);

/** Negation does not reach past these: "not great, but happy" is happy. */
export const CONTRAST_WORDS = wordSet(`but pero mais aber mas ma но`);

export const INTENSIFIERS = wordSet(`so very really extremely super totally incredibly too such absolutely
  completely truly deeply muy tan súper très vraiment trop tellement sehr total echt voll muito tão molto
  davvero troppo tanto очень так`);

function buildLexicon(): ReadonlyMap<string, LexiconEntry> {
  const lexicon = new Map<string, LexiconEntry>();
  for (const [words, strength] of [
    [WEAK_WORDS, 0.5],
    [STRONG_WORDS, 1],
  ] as const) {
    for (const label of FELT_EMOTIONS) {
      for (const word of wordSet(words[label])) lexicon.set(word, { label, strength });
    }
  }
  return lexicon;
}
