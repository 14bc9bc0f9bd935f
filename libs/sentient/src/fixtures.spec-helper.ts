import { type SentientProfile } from './profile';

/** A small hand-written benchmark profile for the tests. */
export function makeProfile(overrides: Partial<SentientProfile> = {}): SentientProfile {
  return {
    id: 'p-1',
    pool: 'benchmark',
    persona: {
      name: 'Mara Quill',
      age: 29,
      gender: 'female',
      occupation: 'night-shift nurse',
      hobbies: ['bouldering', 'sourdough baking', 'true-crime podcasts'],
      habits: 'Writes lists of everything; skips meals on busy shifts.',
      speakingStyle: 'Dry, clipped, a little sarcastic.',
      initiative: 'passive',
    },
    personaType: 'avoidant',
    traits: ['guarded', 'anxious', 'proud'],
    topic: 'workplace conflict',
    scene: {
      background:
        'Her charge nurse reassigned her best patients after a medication mix-up she did not cause.',
      conflict: 'The charge nurse blames her in front of the team.',
      difficulties: 'She tried emailing the manager; no reply.',
      currentState: 'Dreading tomorrow night shift.',
      reactions: {
        high: 'Jokes a little, shares details.',
        medium: 'Short answers.',
        low: 'Snaps, goes quiet.',
      },
      raisesEmotion: 'Being told plainly she did nothing wrong.',
      lowersEmotion: 'Being told to see it from the charge nurse side.',
    },
    hiddenNeed: 'reassurance-not-at-fault',
    firstMessage: 'ugh. work again.',
    ...overrides,
  };
}
