import {
  loadLoraAdapterRequestSchema,
  loraLoadedMessage,
  loraNameAndPathRequiredError,
  loraNameRequiredError,
  loraUnloadedMessage,
  unloadLoraAdapterRequestSchema,
  validationErrorResponse,
} from '@echoloop/openai-compat';
import { sendError, sendText, type Exchange } from './http-exchange';
import type { LoraAdapters } from './lora-adapters';
import type { SerialQueue } from './serial-queue';

export interface LoraRouteDeps {
  adapters: LoraAdapters;
  /** The generation queue: a load or unload waits for the generation under way, never races it. */
  queue: SerialQueue;
}

/** Carried out even if the client leaves while it waits: the registry changes as it was asked to. */
const unabortable = new AbortController().signal;

/** vLLM's `POST /v1/load_lora_adapter`: same checks, messages and statuses. */
export async function handleLoadLora(exchange: Exchange, body: unknown, deps: LoraRouteDeps): Promise<void> {
  const parsed = loadLoraAdapterRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const { lora_name: name, lora_path: path, load_inplace: inPlace } = parsed.data;
  exchange.log.model = name;
  if (!name || !path) return sendError(exchange, loraNameAndPathRequiredError());
  const error = await deps.queue.run(() => deps.adapters.load(name, path, inPlace === true), unabortable);
  if (error) return sendError(exchange, error);
  sendText(exchange, 200, loraLoadedMessage(name));
}

/** vLLM's `POST /v1/unload_lora_adapter`. */
export async function handleUnloadLora(
  exchange: Exchange,
  body: unknown,
  deps: LoraRouteDeps,
): Promise<void> {
  const parsed = unloadLoraAdapterRequestSchema.safeParse(body);
  if (!parsed.success) return sendError(exchange, validationErrorResponse(parsed.error));
  const name = parsed.data.lora_name;
  exchange.log.model = name;
  if (!name) return sendError(exchange, loraNameRequiredError());
  const error = await deps.queue.run(() => deps.adapters.unload(name), unabortable);
  if (error) return sendError(exchange, error);
  sendText(exchange, 200, loraUnloadedMessage(name));
}
