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

export function buildBaseModelCard(init: BaseModelCardInit): ModelCard {
  return {
    id: init.id,
    object: 'model',
    created: init.created,
    owned_by: 'vllm',
    root: init.root,
    parent: null,
    max_model_len: init.maxModelLen,
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
  };
}

export function buildModelList(cards: readonly ModelCard[]): ModelList {
  return { object: 'list', data: [...cards] };
}
