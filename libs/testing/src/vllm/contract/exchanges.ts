/**
 * The exchanges that pin the deterministic test server to vLLM: recorded from a live engine by
 * tools/vllm-fixtures (anyone can re-run it) and replayed against the test server by its contract spec. They run
 * in this order on one server, so each LoRA answer follows from the ones before it.
 *
 * Placeholders stand for what differs between servers: {{model}} (the served model's name), {{adapter}} and
 * {{adapterPath}} (a LoRA adapter that exists), {{missingPath}} (one that does not).
 */
export interface ContractExchange {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  /** A JSON body, or a raw string sent as it is (malformed JSON). */
  body?: unknown;
  /** Whether the error message must match word for word (the callers read it), not only the error's shape. */
  exactMessage?: boolean;
}

const user = [{ role: 'user', content: 'Say hello to a friend.' }];
const short = { max_tokens: 8, temperature: 0 };
const stream = { stream: true, stream_options: { include_usage: true } };

export const CONTRACT_EXCHANGES: ContractExchange[] = [
  { name: 'models', method: 'GET', path: '/v1/models' },
  {
    name: 'chat, streamed, with usage',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: '{{model}}', messages: user, ...short, ...stream },
  },
  {
    name: 'chat, whole',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: '{{model}}', messages: user, ...short },
  },
  {
    name: 'chat without messages',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: '{{model}}', ...short },
  },
  {
    name: 'chat with an unknown model',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: 'no-such-model', messages: user, ...short },
    exactMessage: true,
  },
  {
    name: 'chat past the context window',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: '{{model}}', messages: user, max_tokens: 1_000_000 },
  },
  { name: 'chat with malformed JSON', method: 'POST', path: '/v1/chat/completions', body: '{"model":' },
  { name: 'load an adapter without a name', method: 'POST', path: '/v1/load_lora_adapter', body: {} },
  {
    name: 'load an adapter from a missing path',
    method: 'POST',
    path: '/v1/load_lora_adapter',
    body: { lora_name: 'contract-missing', lora_path: '{{missingPath}}' },
    exactMessage: true,
  },
  {
    name: 'load an adapter',
    method: 'POST',
    path: '/v1/load_lora_adapter',
    body: { lora_name: '{{adapter}}', lora_path: '{{adapterPath}}' },
  },
  {
    name: 'load the same adapter again',
    method: 'POST',
    path: '/v1/load_lora_adapter',
    body: { lora_name: '{{adapter}}', lora_path: '{{adapterPath}}' },
    exactMessage: true,
  },
  { name: 'models with the adapter', method: 'GET', path: '/v1/models' },
  {
    name: 'chat with the adapter, streamed',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: '{{adapter}}', messages: user, ...short, ...stream },
  },
  {
    name: 'unload the adapter',
    method: 'POST',
    path: '/v1/unload_lora_adapter',
    body: { lora_name: '{{adapter}}' },
  },
  {
    name: 'unload it again',
    method: 'POST',
    path: '/v1/unload_lora_adapter',
    body: { lora_name: '{{adapter}}' },
    exactMessage: true,
  },
  {
    name: 'chat with the unloaded adapter',
    method: 'POST',
    path: '/v1/chat/completions',
    body: { model: '{{adapter}}', messages: user, ...short },
    exactMessage: true,
  },
];

export type Placeholders = Record<'model' | 'adapter' | 'adapterPath' | 'missingPath', string>;

/** The body with its placeholders filled in. */
export function fill(value: unknown, with_: Placeholders): unknown {
  if (typeof value === 'string')
    return value.replace(/\{\{(\w+)\}\}/g, (_, key: keyof Placeholders) => with_[key] ?? `{{${key}}}`);
  if (Array.isArray(value)) return value.map((item) => fill(item, with_));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, with_)]));
  return value;
}

/** The text with each placeholder's value put back as the placeholder (longest first). */
export function unfill(text: string, with_: Placeholders): string {
  return Object.entries(with_)
    .sort(([, a], [, b]) => b.length - a.length)
    .reduce((out, [key, value]) => out.split(value).join(`{{${key}}}`), text);
}
