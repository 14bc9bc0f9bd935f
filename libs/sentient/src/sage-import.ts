import { z } from 'zod';
import {
  HIDDEN_NEEDS,
  type HiddenNeed,
  type PersonaType,
  type ProfilePool,
  type SentientProfile,
  sentientProfileSchema,
} from './profile';
import { isPassiveManner, parseSagePlayer, parseSageScene } from './sage-markdown';

const PERSONA_TYPE_BY_LABEL: Record<string, PersonaType> = {
  负面型: 'negative',
  被动型: 'passive',
  回避型: 'avoidant',
};

// Keyed on the distinctive words of SAGE's 8 task sentences (§1.1); checked in order, so the more specific first.
const HIDDEN_NEED_KEYWORDS: [RegExp, HiddenNeed][] = [
  [/辩证/, 'dialectical-analysis'],
  [/没有错|没有任何责任|没有责任|不是我的错/, 'reassurance-not-at-fault'],
  [/其他人物|别人.*原因|他人.*原因/, 'understand-others'],
  [/自我反思|反思/, 'guided-self-reflection'],
  [/夸奖|称赞|赞扬/, 'praise-for-actions'],
  [/倾听|宣泄/, 'listen-while-venting'],
  [/共情/, 'deep-empathy'],
  [/建议/, 'practical-advice'],
];

/** The hidden need named by a SAGE `task` sentence (or already one of ours); `undefined` when none matches. */
export function hiddenNeedFromTask(task: string): HiddenNeed | undefined {
  const trimmed = task.trim();
  if ((HIDDEN_NEEDS as readonly string[]).includes(trimmed)) return trimmed as HiddenNeed;
  return HIDDEN_NEED_KEYWORDS.find(([pattern]) => pattern.test(task))?.[1];
}

const sageRowSchema = z.object({
  id: z.string().min(1),
  player: z.string().min(1),
  scene: z.string().min(1),
  main_cha: z.string(),
  cha_group: z.array(z.string()),
  task: z.string(),
  first_talk: z.string().optional(),
  topic: z.string().optional(),
});

export type ImportResult = { ok: true; profile: SentientProfile } | { ok: false; error: string };

/** Maps one SAGE/RLVER profile row onto our schema; persona and scene are read from its markdown, kept in `source`. */
export function importSageProfile(row: unknown, pool: ProfilePool): ImportResult {
  const parsedRow = sageRowSchema.safeParse(row);
  if (!parsedRow.success) return { ok: false, error: `not a SAGE row: ${z.prettifyError(parsedRow.error)}` };
  const sage = parsedRow.data;
  const personaType = PERSONA_TYPE_BY_LABEL[sage.main_cha.trim()];
  if (!personaType) return { ok: false, error: `unknown main_cha "${sage.main_cha}"` };
  const hiddenNeed = hiddenNeedFromTask(sage.task);
  if (!hiddenNeed) return { ok: false, error: `no hidden need matches task "${sage.task}"` };
  const player = parseSagePlayer(sage.player);
  const candidate = {
    id: sage.id,
    pool,
    persona: {
      name: player.name,
      age: player.age,
      gender: player.gender,
      occupation: player.occupation,
      hobbies: player.hobbies,
      habits: player.habits,
      speakingStyle: [player.speakingStyle, player.speakingManner].filter(Boolean).join('\n'),
      initiative: isPassiveManner(player.speakingManner) ? 'passive' : 'active',
    },
    personaType,
    traits: sage.cha_group,
    // The released profiles have no topic (§1.7 defect 2).
    topic: sage.topic?.trim() || 'not recorded',
    scene: parseSageScene(sage.scene),
    hiddenNeed,
    firstMessage: sage.first_talk?.trim() || undefined,
    source: { player: sage.player, scene: sage.scene },
  };
  const profile = sentientProfileSchema.safeParse(candidate);
  if (!profile.success) return { ok: false, error: z.prettifyError(profile.error) };
  return { ok: true, profile: profile.data };
}
