import { type ObservationDraft } from '../observation';
import { type ScannedText } from './scan';
import { wholeWords } from './words';

export interface InitiativeContext {
  /** The reply the user is answering, if any: a short answer to a question is the passive pattern. */
  previousAssistantMessage?: string;
}

const QUESTION_MARK = /[?？]/g;
const QUESTION_OPENING = wholeWords(
  'what|why|how|when|where|who|which|do you|did you|are you|can you|could you|have you|would you|is it|qué|cómo|por qué|pourquoi|est-ce que|warum|wieso|perché|o que|por que|почему|что',
  { atStart: true },
);
const TOPIC_OPENER = wholeWords(
  "by the way|btw|guess what|you know what|let me tell you|can i tell you|i want to talk about|i wanna talk about|i need to talk about|something happened|so (?:today|yesterday|last night|this morning)|anyway|oh and|fun fact|did you know|let's talk about|have you ever|sabes qué|adivina|au fait|devine quoi|übrigens|rate mal|aliás|sabe o que|comunque|indovina",
);
const MINIMAL_REPLY =
  /^(?:ok(?:ay)?|k+|yes|yeah|yep|yup|no|nope|nah|sure|fine|maybe|idk|i don't know|dunno|i guess|not really|h+m+|m+|uh+|meh|whatever|nothing|same|true|right|cool|nice|lol|sí|si|vale|oui|non|bof|ja|nein|sim|não|boh|va bene|да|нет|ладно)[\s.!?…]*$/;
const ENDS_WITH_QUESTION = /[?？]\s*$/;

const SHORT_REPLY_WORDS = 4;
const LONG_DISCLOSURE_WORDS = 30;

/** Active: asks, brings up topics, elaborates unprompted. Passive: minimal or short answers to questions. */
export function initiativeObservation(
  scan: ScannedText,
  context: InitiativeContext,
  out: ObservationDraft[],
): void {
  const questions = scan.text.match(QUESTION_MARK)?.length ?? (QUESTION_OPENING.test(scan.lower) ? 1 : 0);
  const opensTopic = TOPIC_OPENER.test(scan.lower);
  if (questions > 0 || opensTopic) {
    const weight = 0.5 + (questions > 1 ? 0.15 : 0) + (opensTopic ? 0.2 : 0);
    out.push({ field: 'initiative', value: 'active', weight: Math.min(1, weight) });
    return;
  }
  const answeringQuestion = ENDS_WITH_QUESTION.test(context.previousAssistantMessage ?? '');
  if (MINIMAL_REPLY.test(scan.lower.trim())) {
    out.push({ field: 'initiative', value: 'passive', weight: answeringQuestion ? 0.7 : 0.5 });
  } else if (answeringQuestion && scan.wordCount <= SHORT_REPLY_WORDS) {
    out.push({ field: 'initiative', value: 'passive', weight: 0.4 });
  } else if (scan.wordCount >= LONG_DISCLOSURE_WORDS) {
    out.push({ field: 'initiative', value: 'active', weight: 0.3 });
  }
}
