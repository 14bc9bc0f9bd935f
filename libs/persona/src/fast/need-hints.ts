import { type ObservationDraft } from '../observation';
import { type EmpathyAxis, type EmpathyThreshold, type HiddenNeed } from '../taxonomy';
import { type ScannedText } from './scan';
import { wholeWords } from './words';

/*
 * Weak hints only: a phrase suggests a need, it does not prove it (the deep extraction reads the whole
 * conversation). Weights stay at or under 0.5, so several consistent hints are needed before guidance uses them.
 */

const NEED_HINTS: readonly (readonly [RegExp, HiddenNeed, number])[] = [
  [
    wholeWords(
      "what (?:should|do|can) i do|(?:idk|i don't know|no idea) what to do|any (?:advice|tips|ideas)|how (?:do|can|should) i|what would you do|should i|help me (?:figure|decide|fix)|give me (?:advice|tips)|qué (?:debería|debo|puedo) hacer|que (?:dois|devrais)-je faire|qu'est-ce que je dois faire|was soll ich (?:tun|machen)|o que (?:eu )?(?:devo|faço)|cosa (?:dovrei|devo) fare",
    ),
    'practical-advice',
    0.5,
  ],
  [
    wholeWords(
      'pros and cons|on (?:the )?one hand|both sides|is it (?:right|wrong|fair) (?:to|that)|am i overthinking|from (?:every|a different) angle|weigh (?:it|this|my options)',
    ),
    'dialectical-analysis',
    0.4,
  ],
  [
    wholeWords(
      "why (?:would|did|does|do|is|was) (?:he|she|they|my \\w+)|what (?:was|is) (?:he|she|they) thinking|i don't (?:get|understand) why (?:he|she|they|my)|what (?:does|did) (?:he|she|they) mean",
    ),
    'understand-others',
    0.45,
  ],
  [
    wholeWords(
      "why do i (?:always|keep)|what's wrong with me|i keep (?:doing|making|messing)|why can't i|i don't know what i want|help me understand (?:myself|why i)",
    ),
    'guided-self-reflection',
    0.45,
  ],
  [
    wholeWords(
      'i did it|i finally|i managed to|proud of myself|guess what i did|i (?:got|passed|finished|won|aced|nailed) (?:it|the|my)',
    ),
    'praise-for-actions',
    0.45,
  ],
  [
    wholeWords(
      "i (?:just )?need to (?:vent|rant)|let me (?:vent|rant)|i just need someone to (?:listen|talk to)|just listen|(?:don't|do not) (?:give me|want) advice|solo necesito desahogarme|j'ai (?:juste )?besoin de vider mon sac",
    ),
    'listen-while-venting',
    0.5,
  ],
  [
    wholeWords(
      "nobody understands|no one (?:understands|gets it)|don't tell me (?:it'll|it will) (?:be|get) (?:ok|okay|fine|better)|it hurts so much|i feel so (?:alone|empty)",
    ),
    'deep-empathy',
    0.45,
  ],
  [
    wholeWords(
      "(?:was|is) it my fault|did i do (?:something|anything) wrong|am i (?:the asshole|wrong|a bad person|to blame)|it's all my fault|i feel (?:so )?guilty|i blame myself",
    ),
    'reassurance-not-at-fault',
    0.5,
  ],
];

/** The C/A/P axis each need mostly calls for (EPM: understood / resonated with / affirmed and empowered). */
const AXIS_OF_NEED: Readonly<Record<HiddenNeed, EmpathyAxis>> = {
  'dialectical-analysis': 'cognitive',
  'understand-others': 'cognitive',
  'guided-self-reflection': 'cognitive',
  'listen-while-venting': 'affective',
  'deep-empathy': 'affective',
  'practical-advice': 'proactive',
  'praise-for-actions': 'proactive',
  'reassurance-not-at-fault': 'proactive',
};
const AXIS_SHARE_OF_NEED = 0.6;

const AXIS_HINTS: readonly (readonly [RegExp, EmpathyAxis, number])[] = [
  [
    wholeWords(
      "you don't (?:get|understand)|does (?:that|this) make sense|do you (?:get|understand) (?:what i mean|me)|i feel misunderstood",
    ),
    'cognitive',
    0.4,
  ],
  [
    wholeWords(
      'i (?:just )?need (?:a hug|someone)|my heart (?:hurts|is broken)|heartbroken|i feel (?:so )?empty',
    ),
    'affective',
    0.4,
  ],
  [
    wholeWords(
      "i (?:want|need) to (?:change|get better|improve|be better)|i need (?:motivation|a push)|i can't do (?:this|it)|am i (?:good|capable|smart) enough|i'm not good enough",
    ),
    'proactive',
    0.4,
  ],
];

const THRESHOLD_HINTS: readonly (readonly [RegExp, EmpathyThreshold, number])[] = [
  [
    wholeWords(
      "that's not helpful|that doesn't help|stop saying|you sound like a (?:bot|robot|therapist)|spare me|that's (?:so )?(?:generic|cliché|cliche)|easy for you to say|you always say that",
    ),
    'high',
    0.4,
  ],
  [
    wholeWords(
      "thank you so much|thanks so much|that (?:really )?helps|you're (?:so )?(?:sweet|kind)|i feel (?:so much )?better|that made me (?:smile|feel better)",
    ),
    'low',
    0.3,
  ],
];

/** Weak hints of the hidden need, the empathy axis and the empathy threshold from telling phrases. */
export function needHintObservations(scan: ScannedText, out: ObservationDraft[]): void {
  const { lower } = scan;
  for (const [pattern, need, weight] of NEED_HINTS) {
    if (!pattern.test(lower)) continue;
    out.push({ field: 'hiddenNeed', value: need, weight });
    out.push({ field: 'empathyAxis', value: AXIS_OF_NEED[need], weight: weight * AXIS_SHARE_OF_NEED });
  }
  for (const [pattern, axis, weight] of AXIS_HINTS) {
    if (pattern.test(lower)) out.push({ field: 'empathyAxis', value: axis, weight });
  }
  for (const [pattern, threshold, weight] of THRESHOLD_HINTS) {
    if (pattern.test(lower)) out.push({ field: 'empathyThreshold', value: threshold, weight });
  }
}
