import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';
import { rlJobStatusV1 } from './rl-job-status.v1';

const v1 = rlJobStatusV1.schema.shape.payload.shape;

/**
 * An RL refresh changed status. v2 adds the end status `rendered`: a template that only renders a config for a GPU
 * cluster (`verl-grpo`) trained nothing and serves nothing, which v1 could only call `succeeded`. The orchestrator
 * publishes both; on v1 a rendered job still ends `succeeded`, with its reason. Key: jobId.
 */
export const rlJobStatusV2 = defineContract(
  TOPICS.rlJobStatusV2,
  2,
  z.object({ ...v1, status: z.enum([...v1.status.options, 'rendered']) }),
);
