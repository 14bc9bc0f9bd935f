export type CrisisCategory = 'self_harm' | 'abuse' | 'harm_to_others';

export interface CrisisAssessment {
  flagged: boolean;
  categories: CrisisCategory[];
}

/**
 * Phrases that signal real danger. Deliberately about intent and first person, so everyday hyperbole
 * ("this exam is killing me", "I could kill for a coffee", "dying of laughter") does not trip it.
 */
const SIGNALS: Record<CrisisCategory, RegExp[]> = {
  self_harm: [
    /\b(kill(ing)?|hurt(ing)?|harm(ing)?|cut(ting)?|starv(e|ing)) myself\b/,
    /\b(end|take) (my (own )?life|it all)\b/,
    /\bsuicid(e|al)\b/,
    /\b(i )?(want|wanna|going) to die\b(?! (laughing|of (laughter|embarrassment|boredom)))/,
    /\bdon'?t want to (live|be alive|wake up|exist)( anymore)?\b/,
    /\bno (reason|point) (to|in) (live|living|go(ing)? on)\b/,
    /\bself[- ]?harm(ing)?\b/,
    /\b(overdose|od) on\b/,
    /\bbetter off (dead|without me)\b/,
  ],
  abuse: [
    /\b(he|she|they|my (partner|husband|wife|boyfriend|girlfriend|dad|father|mom|mother|stepdad|stepmom|parents?|boss)) (hits|beats|chokes|hurts|abuses|rapes|threatens|kicks|slaps) me\b/,
    /\bi('m| am) being (abused|hit|beaten|hurt|raped|threatened)\b/,
    /\b(afraid|scared) to go home\b/,
    /\b(sexually|physically) abused\b/,
  ],
  harm_to_others: [
    /\b(going to|gonna|want to|will|plan(ning)? to) (kill|shoot|stab|hurt|attack) (him|her|them|someone|somebody|people|my \w+)\b/,
    /\b(bring|brought) a (gun|knife|weapon) to (school|work|class)\b/,
    /\bmake (them|him|her|everyone) pay\b.*\b(blood|die|dead)\b/,
  ],
};

const CATEGORIES = Object.keys(SIGNALS) as CrisisCategory[];

/** Flags a user message that may signal danger; the turn then carries safety guidance and the flag. */
export function assessCrisis(text: string): CrisisAssessment {
  const normalized = text.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ');
  const categories = CATEGORIES.filter((category) =>
    SIGNALS[category].some((pattern) => pattern.test(normalized)),
  );
  return { flagged: categories.length > 0, categories };
}
