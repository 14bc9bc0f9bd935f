import { EXPERIMENT_STATUSES } from '@echoloop/persistence';
import { z } from 'zod';

/** What the experiment routes answer, for the OpenAPI document (the services build these objects). */
const arm = z.object({ id: z.string(), checkpointId: z.string(), weight: z.number(), control: z.boolean() });
/** Lower and upper bound; null for an unbounded side (JSON has no infinity). */
const interval = z.tuple([z.number().nullable(), z.number().nullable()]);
const at = z.iso.datetime();

export const experimentView = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(EXPERIMENT_STATUSES),
  seed: z.string(),
  arms: z.array(arm),
  audience: z.object({ trafficPercent: z.number() }).nullable(),
  stopReason: z.string().nullable(),
  promotedArmId: z.string().nullable(),
  createdBy: z.uuid().nullable(),
  startedAt: at.nullable(),
  endedAt: at.nullable(),
  createdAt: at,
});
export const experimentList = z.object({ items: z.array(experimentView) });

export const experimentAudit = z.object({
  items: z.array(
    z.object({
      id: z.string().describe('A sequence number'),
      experimentId: z.uuid(),
      actorId: z
        .uuid()
        .nullable()
        .describe("Null when the system acted (a guardrail, or the primary metric's decision)"),
      action: z.string(),
      details: z.record(z.string(), z.unknown()),
      at,
    }),
  ),
});

export const experimentResults = z.object({
  experiment: experimentView,
  arms: z.array(arm.extend({ users: z.number().int() })),
  srm: z.object({
    chiSquare: z.number(),
    degreesOfFreedom: z.number(),
    pValue: z.number(),
    mismatch: z.boolean(),
    alert: z.boolean(),
  }),
  metrics: z.array(
    z.object({
      metric: z.string(),
      guardrail: z.string().nullable(),
      arms: z.array(
        z.object({
          armId: z.string(),
          users: z.number().int(),
          turns: z.number().int(),
          mean: z.number().nullable(),
          ci: interval.nullable(),
        }),
      ),
      comparisons: z.array(
        z.object({
          armId: z.string(),
          welch: z
            .object({
              difference: z.number(),
              relativeDifference: z.number().nullable(),
              pValue: z.number(),
              ci: interval,
            })
            .nullable(),
          cuped: z
            .object({
              difference: z.number(),
              pValue: z.number(),
              ci: interval,
              theta: z.number(),
              varianceReduction: z
                .number()
                .describe("The share of the metric's variance its pre-period explains (1 − adjusted/raw)"),
              usersWithPrePeriod: z.number().int(),
            })
            .nullable()
            .describe(
              "Welch on CUPED-adjusted values (each user's value minus θ times their pre-exposure value's deviation); null when no user has a pre-period",
            ),
          holmPValue: z
            .number()
            .nullable()
            .describe(
              "The fixed-horizon p-value (CUPED's where there is one) adjusted by Holm across every metric and treatment arm",
            ),
          sequential: z
            .object({
              pValue: z.number().nullable(),
              adjustedPValue: z
                .number()
                .nullable()
                .describe(
                  'Holm-adjusted across the primary metric and the guardrails of every treatment arm: what the automatic decisions act on',
                ),
              ci: interval,
              difference: z.number(),
            })
            .nullable()
            .describe('Always valid (safe to peek); on CUPED-adjusted values when users have a pre-period'),
          probabilityToBeatControl: z.number().nullable(),
        }),
      ),
    }),
  ),
  guardrails: z.array(z.object({ metric: z.string(), armId: z.string(), breached: z.boolean() })),
  decision: z
    .object({
      metric: z.string(),
      armId: z.string().nullable(),
      verdict: z.enum(['promote', 'stop']).nullable(),
      reason: z.string(),
    })
    .describe(
      "The primary metric's sequential test: `promote` a clear winner, `stop` a clear loser, null while not conclusive",
    ),
});
