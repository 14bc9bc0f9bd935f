import { userText } from '@echoloop/platform';
import { ADAPTER_PLACEMENT_STATES, CHECKPOINT_STATUSES } from '@echoloop/persistence';
import { z } from 'zod';

export const createCheckpointSchema = z
  .object({
    id: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{1,62}$/, 'lower-case letters, digits, dot, dash, underscore (2-63)'),
    modelName: userText().min(1).max(200),
    endpoints: z
      .array(
        z.object({
          baseUrl: z.url().max(2_048),
          /** The env variable holding the endpoint's key; only LLM_* / CHECKPOINT_* names, never another secret. */
          apiKeyEnv: z
            .string()
            .regex(/^(LLM|CHECKPOINT)_[A-Z0-9_]+$/, 'must name an LLM_* or CHECKPOINT_* variable')
            .optional(),
        }),
      )
      .min(1)
      .max(16),
    decoding: z
      .object({
        temperature: z.number().min(0).max(2).optional(),
        topP: z.number().gt(0).max(1).optional(),
        maxTokens: z.number().int().min(1).max(8_192).optional(),
        stop: z.array(userText().min(1).max(200)).max(8).optional(),
      })
      .strict()
      .default({}),
    contextTokens: z.number().int().min(256).max(1_048_576).default(4_096),
    /**
     * A LoRA adapter's folder (PEFT), as every endpoint can read it: the rl-orchestrator keeps it loaded under
     * `modelName` while the checkpoint is wanted. Absent for a model the endpoints serve by themselves.
     */
    adapterPath: z
      .string()
      .max(4_096)
      .regex(/^\/[^\0\n\r]*$/, 'an absolute path on the serving endpoints')
      .optional(),
    status: z.enum(CHECKPOINT_STATUSES).default('candidate'),
  })
  .strict();

export type CreateCheckpointInput = z.infer<typeof createCheckpointSchema>;

/** A registered checkpoint as the routes answer it (an endpoint's key is only ever named, never shown). */
export const checkpointView = z.object({
  id: z.string(),
  modelName: z.string(),
  endpoints: z.array(z.object({ baseUrl: z.string(), apiKeyEnv: z.string().optional() })),
  decoding: z.object({
    temperature: z.number().optional(),
    topP: z.number().optional(),
    maxTokens: z.number().int().optional(),
    stop: z.array(z.string()).optional(),
  }),
  contextTokens: z.number().int(),
  adapterPath: z.string().nullable(),
  /** Where the adapter is served, as the adapter reconciler last saw each endpoint (empty for a base model). */
  servedOn: z.array(
    z.object({
      baseUrl: z.string(),
      state: z.enum(ADAPTER_PLACEMENT_STATES),
      detail: z.string().nullable(),
      observedAt: z.iso.datetime(),
    }),
  ),
  status: z.enum(CHECKPOINT_STATUSES),
  isDefault: z.boolean(),
  createdAt: z.iso.datetime(),
});
export const checkpointList = z.object({ items: z.array(checkpointView) });
