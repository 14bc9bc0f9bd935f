import { existsSync } from 'node:fs';
import {
  buildErrorResponse,
  loadLoraAdapterRequestSchema,
  loraLoadedMessage,
  loraUnloadedMessage,
  unloadLoraAdapterRequestSchema,
  validationErrorResponse,
} from '@echoloop/openai-compat';
import type { FakeVllmState } from './fake-vllm-state';
import { sendError, sendText, type Exchange } from './http-exchange';

/** Messages, types and statuses follow vLLM's OpenAIServingModels.load_lora_adapter. */
export function handleLoadLora(exchange: Exchange, body: unknown, state: FakeVllmState): void {
  const parsed = loadLoraAdapterRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const { lora_name: name, lora_path: path, load_inplace: inPlace } = parsed.data;
  if (!name || !path) {
    return sendError(exchange, invalidUserInput("Both 'lora_name' and 'lora_path' must be provided."));
  }
  if (!inPlace && state.adapters.has(name)) {
    return sendError(
      exchange,
      invalidUserInput(
        `The lora adapter '${name}' has already been loaded. If you want to load the adapter in place, ` +
          "set 'load_inplace' to True.",
      ),
    );
  }
  if (state.checkAdapterPaths && !existsSync(path)) {
    return sendError(
      exchange,
      buildErrorResponse({
        status: 404,
        message: `Loading lora ${name} failed: No adapter found for ${path}`,
      }),
    );
  }
  state.adapters.set(name, { name, path });
  sendText(exchange, 200, loraLoadedMessage(name));
}

export function handleUnloadLora(exchange: Exchange, body: unknown, state: FakeVllmState): void {
  const parsed = unloadLoraAdapterRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const name = parsed.data.lora_name;
  if (!name) {
    return sendError(
      exchange,
      invalidUserInput("'lora_name' needs to be provided to unload a LoRA adapter."),
    );
  }
  if (!state.adapters.has(name)) {
    return sendError(
      exchange,
      buildErrorResponse({ status: 404, message: `The lora adapter '${name}' cannot be found.` }),
    );
  }
  state.adapters.delete(name);
  sendText(exchange, 200, loraUnloadedMessage(name));
}

function invalidUserInput(message: string) {
  return buildErrorResponse({ status: 400, type: 'InvalidUserInput', message });
}
