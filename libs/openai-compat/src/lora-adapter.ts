import { z } from 'zod';
import { buildErrorResponse, type OpenAiErrorBody } from './error-response';

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

/** vLLM's 400 for a LoRA request it refuses before trying to load anything. */
export function invalidUserInput(message: string): OpenAiErrorBody {
  return buildErrorResponse({ status: 400, type: 'InvalidUserInput', message });
}

export const loraNameAndPathRequiredError = (): OpenAiErrorBody =>
  invalidUserInput("Both 'lora_name' and 'lora_path' must be provided.");

export const loraNameRequiredError = (): OpenAiErrorBody =>
  invalidUserInput("'lora_name' needs to be provided to unload a LoRA adapter.");

export function loraAlreadyLoadedError(name: string): OpenAiErrorBody {
  return invalidUserInput(
    `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, ` +
      "set 'load_inplace' to True.",
  );
}

/** vLLM's 404 when nothing loadable is at `lora_path` (its loader's FileNotFoundError). */
export function loraPathNotFoundError(name: string, path: string): OpenAiErrorBody {
  return buildErrorResponse({
    status: 404,
    message: `Loading lora ${name} failed: No adapter found for ${path}`,
  });
}

/** vLLM's 400 BadRequestError when the loader rejects the adapter; carries the loader's message. */
export function loraLoadFailedError(name: string, detail: string): OpenAiErrorBody {
  return buildErrorResponse({ status: 400, message: `Loading lora ${name} failed: ${detail}` });
}

export function loraNotLoadedError(name: string): OpenAiErrorBody {
  return buildErrorResponse({ status: 404, message: `The lora adapter '${name}' cannot be found.` });
}
