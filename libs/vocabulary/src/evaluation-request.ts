import { z } from 'zod';

/** An evaluation's life, and how it plays its simulated users. */
export const EVALUATION_STATUSES = ['running', 'finished', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];
/** 'sage': SAGE's 10-turn stop rule; 'epm': the C/A/P vector run, judged every turn, up to 45 turns. */
export const EVALUATION_MODES = ['sage', 'epm'] as const;
export type EvaluationMode = (typeof EVALUATION_MODES)[number];

/** Checkpoint and profile ids: bounded ASCII, so that 500 of them stay well under every body limit. */
export const EVALUATION_ID_MAX_CHARS = 200;
const id = () =>
  z
    .string()
    .min(1)
    .max(EVALUATION_ID_MAX_CHARS)
    .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits, dot, dash, underscore, colon');

/**
 * A checkpoint on the sentient benchmark, some profiles or `limit` of a pool: as the gateway takes it from staff
 * and the eval-runner from the gateway and the rl-orchestrator.
 */
export const createEvaluationRequest = z
  .object({
    checkpointId: id(),
    suite: z.literal('sentient').default('sentient'),
    mode: z.enum(EVALUATION_MODES).default('sage'),
    /** Profile ids to play; default: the pool, or `limit` of it spread over the hidden needs. */
    profiles: z.array(id()).min(1).max(500).optional(),
    pool: z.enum(['benchmark', 'train']).default('benchmark'),
    limit: z.number().int().min(1).max(500).optional(),
    /** At most this many policy turns per conversation (a short run); default: the mode's own stop rule. */
    maxTurns: z.number().int().min(1).max(45).optional(),
  })
  .strict();
export type CreateEvaluationRequest = z.infer<typeof createEvaluationRequest>;

/** A page of evaluations, newest first, optionally of one status. */
export const listEvaluationsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    status: z.enum(EVALUATION_STATUSES).optional(),
  })
  .strict();
export type ListEvaluationsQuery = z.infer<typeof listEvaluationsQuery>;
