import { existsSync } from 'node:fs';
import { z } from 'zod';

const port = z.coerce.number().int().min(1).max(65_535);
const positiveInt = z.coerce.number().int().min(1);

export const modelServerEnvSchema = z.object({
  MODEL_PATH: z
    .string({ error: 'MODEL_PATH is required: the path of the GGUF file to serve' })
    .min(1, 'MODEL_PATH is required: the path of the GGUF file to serve')
    .refine((path) => existsSync(path), {
      error: (issue) => `MODEL_PATH does not exist: ${String(issue.input)}`,
    }),
  MODEL_NAME: z.string().min(1).default('smollm2-135m-instruct'),
  MODEL_HOST: z.string().min(1).default('127.0.0.1'),
  MODEL_PORT: port.default(18_000),
  MODEL_CONTEXT_SIZE: positiveInt.default(2048),
  MODEL_THREADS: positiveInt.default(2),
  /** Most LoRA adapters loaded at once (vLLM's --max-loras); each holds its own llama context. */
  MODEL_MAX_LORAS: positiveInt.default(4),
  /** JSON file keeping the loaded LoRA adapters (name → path) across restarts; unset: not kept. */
  MODEL_LORA_STATE: z.string().min(1).optional(),
});
export type ModelServerEnv = z.infer<typeof modelServerEnvSchema>;

/** Parses the environment, or returns one line per problem, each naming its variable. */
export function readModelServerEnv(
  env: NodeJS.ProcessEnv,
): { ok: true; env: ModelServerEnv } | { ok: false; problems: string[] } {
  const parsed = modelServerEnvSchema.safeParse(env);
  if (parsed.success) return { ok: true, env: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0] ?? 'env');
    return issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`;
  });
  return { ok: false, problems };
}
