import { emotionObservations } from './fast/emotion';
import { type InitiativeContext, initiativeObservation } from './fast/initiative';
import { languageObservation } from './fast/language';
import { needHintObservations } from './fast/need-hints';
import { scanText } from './fast/scan';
import { selfStatementObservations } from './fast/self-statements';
import { speechStyleObservations } from './fast/speech-style';
import { type Observation, type ObservationDraft } from './observation';

export interface UserMessage {
  id: string;
  text: string;
  createdAt: Date | string;
}

export type FastFeatureContext = InitiativeContext;

/**
 * Per-turn observations of one user message, computed in-process with no model call: speech style, language,
 * initiative, current emotion, explicit age and gender statements, and weak hidden-need and empathy hints.
 * Precompiled patterns over one lowercased, tokenised copy of the text; tens of microseconds per message.
 */
export function extractFastFeatures(message: UserMessage, context: FastFeatureContext = {}): Observation[] {
  const scan = scanText(message.text);
  if (scan.tokens.length === 0 && scan.emojis.length === 0) return [];
  const drafts: ObservationDraft[] = [];
  speechStyleObservations(scan, drafts);
  languageObservation(scan, drafts);
  initiativeObservation(scan, context, drafts);
  emotionObservations(scan, drafts);
  selfStatementObservations(scan, drafts);
  needHintObservations(scan, drafts);
  const observedAt =
    message.createdAt instanceof Date ? message.createdAt.getTime() : Date.parse(message.createdAt);
  const origin = { messageId: message.id, observedAt, source: 'fast' } as const;
  return drafts.map((draft) => Object.assign(draft, origin));
}
