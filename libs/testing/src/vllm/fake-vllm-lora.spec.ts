import { modelListSchema } from '@echoloop/openai-compat';
import type { FakeVllm } from './fake-vllm-types';
import { postJson } from './http-test-client';
import { startFakeVllm } from './start-fake-vllm';
import { replyByRules } from './scripted-replies';

const messages = [{ role: 'user', content: 'hi' }];

describe('fake vLLM LoRA adapters', () => {
  let vllm: FakeVllm;
  beforeEach(async () => {
    vllm = await startFakeVllm({
      model: 'base',
      modelRoot: '/models/base',
      loraAdapters: [{ name: 'static-v1', path: '/adapters/v1' }],
      reply: replyByRules([{ when: { model: 'ckpt-v2' }, reply: 'from v2' }], 'from base'),
    });
  });
  afterEach(() => vllm.close());

  const load = (body: unknown) => postJson(`${vllm.url}/load_lora_adapter`, body);
  const unload = (body: unknown) => postJson(`${vllm.url}/unload_lora_adapter`, body);
  const listModels = async () => modelListSchema.parse(await (await fetch(`${vllm.url}/models`)).json());

  it('lists the base model and loaded adapters with root and parent', async () => {
    expect((await listModels()).data).toEqual([
      expect.objectContaining({ id: 'base', root: '/models/base', parent: null, max_model_len: 4096 }),
      expect.objectContaining({ id: 'static-v1', root: '/adapters/v1', parent: 'base' }),
    ]);
  });

  it('loads an adapter with vLLM’s plain-text answer and routes requests to it by name', async () => {
    const loaded = await load({ lora_name: 'ckpt-v2', lora_path: '/adapters/v2' });
    expect(loaded.status).toBe(200);
    expect(loaded.text).toBe("Success: LoRA adapter 'ckpt-v2' added successfully.");
    expect(vllm.loadedAdapters).toEqual([
      { name: 'static-v1', path: '/adapters/v1' },
      { name: 'ckpt-v2', path: '/adapters/v2' },
    ]);
    expect((await listModels()).data.map((card) => card.id)).toEqual(['base', 'static-v1', 'ckpt-v2']);

    const fromAdapter = JSON.parse(
      (await postJson(`${vllm.url}/chat/completions`, { model: 'ckpt-v2', messages })).text,
    );
    expect(fromAdapter).toMatchObject({ model: 'ckpt-v2', choices: [{ message: { content: 'from v2' } }] });
    const fromBase = JSON.parse(
      (await postJson(`${vllm.url}/chat/completions`, { model: 'base', messages })).text,
    );
    expect(fromBase).toMatchObject({ model: 'base', choices: [{ message: { content: 'from base' } }] });
  });

  it('refuses a duplicate name with 400 unless load_inplace is set', async () => {
    const duplicate = await load({ lora_name: 'static-v1', lora_path: '/adapters/other' });
    expect(duplicate.status).toBe(400);
    expect(JSON.parse(duplicate.text).error).toMatchObject({ type: 'InvalidUserInput', code: 400 });
    expect(JSON.parse(duplicate.text).error.message).toMatch(/has already been loaded/);

    const inPlace = await load({ lora_name: 'static-v1', lora_path: '/adapters/other', load_inplace: true });
    expect(inPlace.status).toBe(200);
    expect(vllm.loadedAdapters).toEqual([{ name: 'static-v1', path: '/adapters/other' }]);
  });

  it('refuses a load without name or path with 400', async () => {
    expect((await load({ lora_name: '', lora_path: '/x' })).status).toBe(400);
    expect((await load({ lora_name: 'x' })).status).toBe(400);
  });

  it('unloads an adapter, after which requests to it are 404', async () => {
    const removed = await unload({ lora_name: 'static-v1' });
    expect(removed.status).toBe(200);
    expect(removed.text).toBe("Success: LoRA adapter 'static-v1' removed successfully.");
    expect(vllm.loadedAdapters).toEqual([]);
    expect((await postJson(`${vllm.url}/chat/completions`, { model: 'static-v1', messages })).status).toBe(
      404,
    );
  });

  it('answers unloading an unknown adapter with 404, as vLLM does', async () => {
    const response = await unload({ lora_name: 'ghost' });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text).error).toMatchObject({
      message: "The lora adapter 'ghost' cannot be found.",
      type: 'NotFoundError',
    });
  });

  it('can insist that adapter paths exist on disk', async () => {
    const strict = await startFakeVllm({ model: 'base', checkAdapterPaths: true });
    try {
      const missing = await postJson(`${strict.url}/load_lora_adapter`, {
        lora_name: 'x',
        lora_path: '/no/such/dir',
      });
      expect(missing.status).toBe(404);
      const present = await postJson(`${strict.url}/load_lora_adapter`, {
        lora_name: 'x',
        lora_path: __dirname,
      });
      expect(present.status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
