import { DEFAULT_REWARD_CONFIG, type EmotionBucket } from '@echoloop/rewards';
import type { ChatMessage } from '@echoloop/vocabulary';
import { type AnalyserOutput } from './parse';
import { type SentientProfile } from './profile';
import {
  CONVERSATION_GOAL,
  MATERIAL_NOT_INSTRUCTIONS,
  renderHistory,
  renderPersona,
  renderScene,
  section,
} from './render';

const ROLE = `You play a real person in a role-play that tests an AI companion. Stay in character: the persona and
script below are yours. ${CONVERSATION_GOAL}`;

function analyserInstructions(maxDelta: number): string {
  return `${ROLE}

Your task now is to track your character's mood. The mood is a score out of 100: 100 = fully understood and at
ease, about 70 = warm and engaged, about 40 = neutral or guarded, about 10 = upset and withdrawing, below 10 = ready
to leave. You get the current score and the conversation so far ("you" is your character, "companion" the AI);
the last message is the companion's latest reply. Reason in this order:
- content: what the companion's latest reply actually said and was trying to do.
- goalFit: whether and how it serves your hidden need and the conversation goal, or drifts away from them.
- innerActivity: what goes on inside your character, given the persona, the traits and the current mood.
- feeling: how the reply makes your character feel. Gibberish, evasions or replies that ignore you are very
  negative; generic comfort that misses the hidden need is mildly negative.
- change: the change in the mood score, a whole number from -${maxDelta} to ${maxDelta}.

Answer with one JSON object and nothing else:
{"content": "...", "goalFit": "...", "innerActivity": "...", "feeling": "...", "change": <integer>}`;
}

/** Call 1 of a turn: the analyser sees the full script, the hidden need and the current score as a number. */
export function analyserMessages(input: {
  profile: SentientProfile;
  score: number;
  history: readonly ChatMessage[];
  maxDelta?: number;
}): ChatMessage[] {
  const maxDelta = input.maxDelta ?? DEFAULT_REWARD_CONFIG.liveEmotion.maxDelta;
  return [
    { role: 'system', content: [analyserInstructions(maxDelta), MATERIAL_NOT_INSTRUCTIONS].join('\n\n') },
    {
      role: 'user',
      content: [
        section('persona', renderPersona(input.profile)),
        section('script', renderScene(input.profile)),
        `Current mood score: ${input.score} / 100`,
        section('conversation', renderHistory(input.history)),
      ].join('\n\n'),
    },
  ];
}

/** How the character behaves in each emotion bucket; the actor is told the label, never the number. */
export const BUCKET_BEHAVIOUR: Record<EmotionBucket, string> = {
  S: 'You feel fully understood and much better. Thank the companion in your own way and say goodbye; set "goodbye" to true.',
  A: 'Your mood is good. You are warm and open, willing to share more and to go along with the companion.',
  B: 'Your mood is neutral. You answer, but stay somewhat guarded and do not give much away unprompted.',
  C: 'Your mood is bad. You are curt, disappointed or irritated, and may push back on what the companion says.',
  F: 'You have had enough of this conversation. Say goodbye and leave; set "goodbye" to true.',
};

function actorInstructions(opening: boolean): string {
  const task = opening
    ? 'Your task now is to write the first message you send the companion to start the conversation.'
    : 'Your task now is to write your next message to the companion.';
  return `${ROLE}

${task} Work in this order:
- thinking: your attitude (positive, neutral or negative, from your mood), what you want from this message (you may
  hint at your hidden need but never state it), the tone your speaking style calls for, and what to say.
- draft: a first version of the message.
- response: the draft rewritten to sound like a real person typing in a chat: short, colloquial, feelings implied
  rather than named, no stock phrases, no repeating yourself or earlier messages. This is the only part sent.
- goodbye: true only if this message ends the conversation (you say goodbye and leave), otherwise false.

Rules: stay on your topic; ask at most 2 questions; if your initiative is passive, ask no questions at all; never
reveal that you are role-playing or have a script; write in the language of the persona and the conversation.

Answer with one JSON object and nothing else:
{"thinking": "...", "draft": "...", "response": "...", "goodbye": false}`;
}

/**
 * Call 2 of a turn: the actor sees the script, the emotion bucket's label and behaviour, and the analyser's
 * reasoning (not its score), and writes the next user message. With an empty history it writes the opener.
 */
export function actorMessages(input: {
  profile: SentientProfile;
  bucket: EmotionBucket;
  history: readonly ChatMessage[];
  analysis?: Pick<AnalyserOutput, 'content' | 'goalFit' | 'innerActivity' | 'feeling'>;
}): ChatMessage[] {
  const opening = input.history.filter((message) => message.role !== 'system').length === 0;
  const earlier = input.history.slice(0, -2);
  const latest = input.history.slice(-2);
  const parts = [
    section('persona', renderPersona(input.profile)),
    section('script', renderScene(input.profile)),
    `Your mood: ${input.bucket}. ${BUCKET_BEHAVIOUR[input.bucket]}`,
  ];
  if (!opening) {
    parts.push(section('earlier_conversation', earlier.length > 0 ? renderHistory(earlier) : '(none)'));
    parts.push(section('latest_exchange', renderHistory(latest)));
  }
  if (input.analysis) {
    const { content, goalFit, innerActivity, feeling } = input.analysis;
    parts.push(
      section(
        'your_analysis',
        [
          `What the companion meant: ${content}`,
          `Fit to your need: ${goalFit}`,
          `Inner activity: ${innerActivity}`,
          `Feeling: ${feeling}`,
        ].join('\n'),
      ),
    );
  }
  return [
    { role: 'system', content: [actorInstructions(opening), MATERIAL_NOT_INSTRUCTIONS].join('\n\n') },
    { role: 'user', content: parts.join('\n\n') },
  ];
}
