import { z } from 'zod';

/** Body of vLLM's `POST /v1/load_lora_adapter` (needs VLLM_ALLOW_RUNTIME_LORA_UPDATING=True). */
export const loadLoraAdapterRequestSchema = z.looseObject({
  lora_name: z.string(),
  lora_path: z.string(),
  load_inplace: z.boolean().optional(),
});
export type LoadLoraAdapterRequest = z.infer<typeof loadLoraAdapterRequestSchema>;

/** Body of vLLM's `POST /v1/unload_lora_adapter`. */
export const unloadLoraAdapterRequestSchema = z.looseObject({
  lora_name: z.string(),
  lora_int_id: z.int().nullish(),
});
export type UnloadLoraAdapterRequest = z.infer<typeof unloadLoraAdapterRequestSchema>;

/** vLLM answers both endpoints with these plain-text bodies on success. */
export function loraLoadedMessage(name: string): string {
  return `Success: LoRA adapter '${name}' added successfully.`;
}

export function loraUnloadedMessage(name: string): string {
  return `Success: LoRA adapter '${name}' removed successfully.`;
}
