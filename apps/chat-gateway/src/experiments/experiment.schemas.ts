import { userText } from '@echoloop/platform';
import { z } from 'zod';

const armId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'lowercase letters, digits, - and _ (at most 32)');

const armSchema = z
  .object({
    id: armId,
    checkpointId: userText().min(1).max(200),
    weight: z.number().min(0).max(1_000),
    control: z.boolean().default(false),
  })
  .strict();

export const createExperimentSchema = z
  .object({
    name: userText().trim().min(1).max(120),
    description: userText().trim().max(2_000).optional(),
    arms: z.array(armSchema).min(2).max(10),
    audience: z
      .object({ trafficPercent: z.number().min(0).max(100) })
      .strict()
      .optional(),
    /** Fixed at creation; random when not given. Changing it would reshuffle every user. */
    seed: userText().min(1).max(64).optional(),
  })
  .strict()
  .refine((e) => new Set(e.arms.map((a) => a.id)).size === e.arms.length, {
    message: 'arm ids must be unique',
    path: ['arms'],
  })
  .refine((e) => e.arms.filter((a) => a.control).length === 1, {
    message: 'exactly one arm must be the control',
    path: ['arms'],
  })
  .refine((e) => e.arms.some((a) => a.weight > 0), {
    message: 'some arm needs a weight above 0',
    path: ['arms'],
  });
export type CreateExperimentInput = z.infer<typeof createExperimentSchema>;

export const weightsSchema = z
  .object({ weights: z.record(armId, z.number().min(0).max(1_000)) })
  .strict()
  .refine((w) => Object.values(w.weights).some((v) => v > 0), 'some arm needs a weight above 0');
export type WeightsInput = z.infer<typeof weightsSchema>;

export const promoteSchema = z.object({ armId }).strict();
export const stopSchema = z.object({ reason: userText().trim().max(500).optional() }).strict();
