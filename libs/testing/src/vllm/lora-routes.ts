import { existsSync } from 'node:fs';
import {
  loadLoraAdapterRequestSchema,
  loraAlreadyLoadedError,
  loraLoadedMessage,
  loraNameAndPathRequiredError,
  loraNameRequiredError,
  loraNotLoadedError,
  loraPathNotFoundError,
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
  if (!name || !path) return sendError(exchange, loraNameAndPathRequiredError());
  if (!inPlace && state.adapters.has(name)) return sendError(exchange, loraAlreadyLoadedError(name));
  if (state.checkAdapterPaths && !existsSync(path)) {
    return sendError(exchange, loraPathNotFoundError(name, path));
  }
  state.adapters.set(name, { name, path });
  sendText(exchange, 200, loraLoadedMessage(name));
}

export function handleUnloadLora(exchange: Exchange, body: unknown, state: FakeVllmState): void {
  const parsed = unloadLoraAdapterRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const name = parsed.data.lora_name;
  if (!name) return sendError(exchange, loraNameRequiredError());
  if (!state.adapters.has(name)) return sendError(exchange, loraNotLoadedError(name));
  state.adapters.delete(name);
  sendText(exchange, 200, loraUnloadedMessage(name));
}
