import type { SentientProfile } from '@echoloop/sentient';

/** A small hand-written simulated user for the unit tests. */
export function testProfile(
  id: string,
  pool: SentientProfile['pool'],
  hiddenNeed: SentientProfile['hiddenNeed'] = 'reassurance-not-at-fault',
): SentientProfile {
  return {
    id,
    pool,
    persona: {
      name: 'Mara Quill',
      age: 29,
      gender: 'female',
      occupation: 'night-shift nurse',
      hobbies: ['bouldering'],
      habits: 'Writes lists of everything.',
      speakingStyle: 'Dry, clipped.',
      initiative: 'passive',
    },
    personaType: 'avoidant',
    traits: ['guarded'],
    topic: 'workplace conflict',
    scene: {
      background: 'Her charge nurse reassigned her patients.',
      conflict: 'The charge nurse blames her.',
      difficulties: 'No reply from the manager.',
      currentState: 'Dreading tomorrow.',
      reactions: { high: 'Jokes a little.', medium: 'Short answers.', low: 'Snaps.' },
      raisesEmotion: 'Being told she did nothing wrong.',
      lowersEmotion: 'Being told to see the other side.',
    },
    hiddenNeed,
    firstMessage: 'ugh. work again.',
  };
}

/** The simulated user's answers, as the analyser and the actor write them. */
export const analyserAnswer = (change: number) =>
  JSON.stringify({ content: 'c', goalFit: 'g', innerActivity: 'i', feeling: 'f', change });
export const actorAnswer = (response: string, goodbye = false) =>
  JSON.stringify({ thinking: 't', draft: response, response, goodbye });
