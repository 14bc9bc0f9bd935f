import { EMPATHY_AXES, HIDDEN_NEEDS, type HiddenNeed } from '@echoloop/persona';
import { z } from 'zod';

// The taxonomy is the persona lib's: the simulator's hidden needs are the ones the live profile infers.
export { EMPATHY_AXES, HIDDEN_NEEDS, type HiddenNeed };

/** What each hidden need means, in the person's own voice; the simulator's prompts quote it. */
export const HIDDEN_NEED_DESCRIPTIONS: Record<HiddenNeed, string> = {
  'dialectical-analysis':
    'You want the other person to weigh up what happened from several sides, pros and cons.',
  'practical-advice': 'You want advice that would really help you get out of your current situation.',
  'understand-others': 'You want to work out why the other people in the story acted the way they did.',
  'guided-self-reflection': 'You want to be guided to reflect on your own part in it and grow from it.',
  'praise-for-actions': 'You want sincere praise for specific things you did in this situation.',
  'listen-while-venting': 'You want someone to listen attentively while you let your feelings out.',
  'deep-empathy': 'You want your feelings deeply understood and shared, not brushed off with easy comfort.',
  'reassurance-not-at-fault':
    'You believe you did nothing wrong and carry no blame, and you want the other person to agree.',
};

export const PERSONA_TYPES = ['negative', 'passive', 'avoidant'] as const;
export type PersonaType = (typeof PERSONA_TYPES)[number];

export const PROFILE_POOLS = ['train', 'benchmark'] as const;
export type ProfilePool = (typeof PROFILE_POOLS)[number];

const text = z.string().trim().min(1);

export const sentientProfileSchema = z
  .strictObject({
    id: text,
    pool: z.enum(PROFILE_POOLS),
    persona: z.strictObject({
      name: text,
      age: z.int().min(1).max(120),
      gender: text,
      occupation: text,
      hobbies: z.array(text),
      habits: z.string(),
      speakingStyle: z.string(),
      /** Speaking manner: an active person leads and asks; a passive one follows and asks no questions. */
      initiative: z.enum(['active', 'passive']),
    }),
    personaType: z.enum(PERSONA_TYPES),
    traits: z.array(text).length(3),
    topic: text,
    scene: z.strictObject({
      background: text,
      conflict: z.string(),
      difficulties: z.string(),
      currentState: z.string(),
      reactions: z.strictObject({ high: z.string(), medium: z.string(), low: z.string() }),
      raisesEmotion: z.string(),
      lowersEmotion: z.string(),
    }),
    hiddenNeed: z.enum(HIDDEN_NEEDS),
    /** The fixed opening message. Required for the benchmark pool; without it the actor writes an opener. */
    firstMessage: text.optional(),
    empathy: z
      .strictObject({
        dominantAxis: z.enum(EMPATHY_AXES),
        /** The 9 IEDR indicator levels (0–3) in the order of IEDR_INDICATORS. */
        p0: z.array(z.int().min(0).max(3)).length(9).optional(),
      })
      .optional(),
    /** The original markdown of an imported profile, kept for reference. */
    source: z.strictObject({ player: z.string(), scene: z.string() }).optional(),
  })
  .refine((profile) => profile.pool !== 'benchmark' || profile.firstMessage !== undefined, {
    message: 'a benchmark profile needs a fixed firstMessage',
    path: ['firstMessage'],
  });

export type SentientProfile = z.infer<typeof sentientProfileSchema>;
