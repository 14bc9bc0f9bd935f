import { type ChatTurnText, numberedTranscript } from './transcript';

/** Bumped whenever the instructions change, so stored observations can be traced to the prompt that made them. */
export const DEEP_EXTRACTION_PROMPT_VERSION = 'persona-deep-v1';

const INSTRUCTIONS = `You read a conversation between a user and an AI companion and infer who the user is and what they need. \
Judge only from the user's messages, which are numbered [1], [2], ...; the companion's lines are there for context.

Reply with one JSON object. For each field you can judge, give {"value", "confidence", "evidence"}: confidence from 0 \
(a guess) to 1 (the messages show it plainly), evidence the numbers of the (at most five) user messages that show it best. Leave out any \
field the messages do not show; an empty object is a valid answer.

Fields:
- formality 0 (casual, slang, lowercase) to 1 (polite, complete sentences); verbosity 0 (a few words) to 1 (long messages)
- initiative: "active" (asks, brings up topics, elaborates unprompted) or "passive" (short answers, waits to be asked)
- openness, conscientiousness, extraversion, agreeableness, neuroticism: Big Five traits, 0 to 1
- mbtiExtraversion, mbtiSensing, mbtiThinking, mbtiJudging: the probability of E over I, S over N, T over F, J over P
- emotion right now: neutral, joy, sadness, anger, fear, anxiety, loneliness or surprise; valence -1 to 1; arousal 0 to 1
- hiddenNeed, what would help most even if unsaid: "dialectical-analysis" (weigh both sides of the problem), \
"practical-advice" (concrete steps), "understand-others" (why someone else acted as they did), "guided-self-reflection" \
(questions that help them think it through), "praise-for-actions" (recognition of specific things they did), \
"listen-while-venting" (to be heard, no advice), "deep-empathy" (specific, deep empathy, no platitudes), \
"reassurance-not-at-fault" (to hear they did nothing wrong)
- empathyAxis, the empathy they need most: "cognitive" (to be understood accurately), "affective" (to have their \
feelings shared), "proactive" (to be affirmed and encouraged to act)
- empathyThreshold: "low" (simple comfort lands), "mid", "high" (generic comfort does not land)
- ageBand and gender: only when the user states them outright; never guess them.`;

/** The chat messages of one extraction request: fixed instructions, then the numbered conversation. */
export function deepExtractionMessages(turns: readonly ChatTurnText[]) {
  return [
    { role: 'system' as const, content: INSTRUCTIONS },
    { role: 'user' as const, content: `Conversation:\n${numberedTranscript(turns)}` },
  ];
}

/** Sent with the first attempt's output when it was not valid, so the retry can correct it. */
export function deepExtractionCorrection(problem: string): string {
  return `That reply was not valid (${problem}). Reply again with only the JSON object, following the fields above.`;
}
