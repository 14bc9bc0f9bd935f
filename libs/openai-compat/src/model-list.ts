import { z } from 'zod';

export const modelCardSchema = z.looseObject({
  id: z.string(),
  object: z.literal('model'),
  created: z.int(),
  owned_by: z.string(),
  /** Base model: its path or HF id. LoRA adapter: the adapter's path. */
  root: z.string().nullable(),
  /** Null for a base model; the base model's name for a LoRA adapter. */
  parent: z.string().nullable(),
  max_model_len: z.int().nullable().optional(),
});
export type ModelCard = z.infer<typeof modelCardSchema>;

export const modelListSchema = z.object({
  object: z.literal('list'),
  data: z.array(modelCardSchema),
});
export type ModelList = z.infer<typeof modelListSchema>;

export interface BaseModelCardInit {
  id: string;
  root: string;
  maxModelLen: number;
  created: number;
}

export interface AdapterModelCardInit {
  id: string;
  path: string;
  baseModel: string;
  created: number;
}

/** vLLM lists one permission per model, always the same grants. */
function permission(created: number) {
  return [
    {
      id: `modelperm-${created.toString(16).padStart(16, '0')}`,
      object: 'model_permission',
      created,
      allow_create_engine: false,
      allow_sampling: true,
      allow_logprobs: true,
      allow_search_indices: false,
      allow_view: true,
      allow_fine_tuning: false,
      organization: '*',
      group: null,
      is_blocking: false,
    },
  ];
}

export function buildBaseModelCard(init: BaseModelCardInit): ModelCard {
  return {
    id: init.id,
    object: 'model',
    created: init.created,
    owned_by: 'vllm',
    root: init.root,
    parent: null,
    max_model_len: init.maxModelLen,
    permission: permission(init.created),
  };
}

export function buildAdapterModelCard(init: AdapterModelCardInit): ModelCard {
  return {
    id: init.id,
    object: 'model',
    created: init.created,
    owned_by: 'vllm',
    root: init.path,
    parent: init.baseModel,
    max_model_len: null,
    permission: permission(init.created),
  };
}

export function buildModelList(cards: readonly ModelCard[]): ModelList {
  return { object: 'list', data: [...cards] };
}
