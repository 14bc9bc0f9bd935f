import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { modelListSchema } from '@echoloop/openai-compat';
import { pino } from 'pino';
import {
  AdapterLoadError,
  type ChatEngine,
  type GenerationRequest,
  type GenerationResult,
} from './chat-engine';
import { LoraAdapters } from './lora-adapters';
import { createModelServer } from './model-server';

/** Answers with the adapter's name; a file whose text starts "not a lora" fails to load, as llama.cpp would. */
class AdapterEngine implements ChatEngine {
  readonly contextSize = 64;
  readonly loaded = new Map<string, string>();
  readonly events: string[] = [];
  generationMs = 0;

  countPromptTokens(): number {
    return 5;
  }

  async prepareResponseFormat(): Promise<void> {}

  async generate(request: GenerationRequest): Promise<GenerationResult> {
    this.events.push(`generate:${request.adapter ?? 'base'}`);
    await new Promise((resolve) => setTimeout(resolve, this.generationMs));
    const text = `from ${request.adapter ?? 'base'}`;
    this.events.push('generated');
    return { text, finish: { reason: 'stop', stopReason: null }, completionTokens: 2, aborted: false };
  }

  async loadAdapter(name: string, file: string): Promise<void> {
    if (readFileSync(file, 'utf8').startsWith('not a lora')) {
      throw new AdapterLoadError(`Failed to initialize LoRA adapter "${file}"`);
    }
    this.events.push(`load:${name}`);
    this.loaded.set(name, file);
  }

  async unloadAdapter(name: string): Promise<void> {
    this.events.push(`unload:${name}`);
    this.loaded.delete(name);
  }
}

describe('model server LoRA adapters (vLLM runtime LoRA API)', () => {
  let dir: string;
  let engine: AdapterEngine;
  let server: Server;
  let baseUrl: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'model-server-lora-'));
    writeFileSync(join(dir, 'v1.gguf'), 'lora v1');
    writeFileSync(join(dir, 'v2.gguf'), 'lora v2');
    writeFileSync(join(dir, 'text.gguf'), 'not a lora, just text');
    mkdirSync(join(dir, 'ckpt'));
    writeFileSync(join(dir, 'ckpt', 'adapter.gguf'), 'lora from a training job');
    mkdirSync(join(dir, 'peft-only'));
    writeFileSync(join(dir, 'peft-only', 'adapter_config.json'), '{}');
    engine = new AdapterEngine();
    const logger = pino({ level: 'silent' });
    const adapters = new LoraAdapters({ engine, maxLoras: 2, logger });
    server = createModelServer({
      engine,
      modelName: 'base',
      modelRoot: '/models/base.gguf',
      logger,
      adapters,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };
  const load = (body: unknown) => post('/load_lora_adapter', body);
  const unload = (body: unknown) => post('/unload_lora_adapter', body);
  const errorOf = (response: { text: string }) => JSON.parse(response.text).error;
  const chat = (model: string) =>
    post('/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
  const listModels = async () => modelListSchema.parse(await (await fetch(`${baseUrl}/models`)).json()).data;

  it('loads a GGUF file with vLLM’s answer, lists it with root and parent, and answers its model name', async () => {
    const loaded = await load({ lora_name: 'ckpt-v1', lora_path: join(dir, 'v1.gguf') });
    expect(loaded).toEqual({ status: 200, text: "Success: LoRA adapter 'ckpt-v1' added successfully." });
    expect(engine.loaded).toEqual(new Map([['ckpt-v1', join(dir, 'v1.gguf')]]));
    expect(await listModels()).toEqual([
      expect.objectContaining({ id: 'base', root: '/models/base.gguf', parent: null, max_model_len: 64 }),
      expect.objectContaining({ id: 'ckpt-v1', object: 'model', root: join(dir, 'v1.gguf'), parent: 'base' }),
    ]);

    const fromAdapter = await chat('ckpt-v1');
    expect(JSON.parse(fromAdapter.text)).toMatchObject({
      model: 'ckpt-v1',
      choices: [{ message: { content: 'from ckpt-v1' } }],
    });
    expect(JSON.parse((await chat('base')).text)).toMatchObject({
      choices: [{ message: { content: 'from base' } }],
    });
    expect((await chat('other')).status).toBe(404);
  });

  it('a chat queued for an adapter that is unloaded before its turn gets vLLM’s 404, not a 500', async () => {
    expect((await load({ lora_name: 'a', lora_path: join(dir, 'v1.gguf') })).status).toBe(200);
    engine.generationMs = 200;
    const busy = chat('base');
    const unloaded = unload({ lora_name: 'a' });
    const queued = chat('a');
    const streamed = post('/chat/completions', {
      model: 'a',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((await busy).status).toBe(200);
    expect((await unloaded).status).toBe(200);
    const plain = await queued;
    expect(plain.status).toBe(404);
    expect(errorOf(plain)).toMatchObject({ message: 'The model `a` does not exist.', code: 404 });
    // A stream has sent its headers already: the error travels in it, with vLLM's status.
    const sse = await streamed;
    expect(sse.text).toContain('"code":404');
    expect(sse.text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(engine.events).not.toContain('generate:a');
  });

  it('loads adapter.gguf from a training job’s directory, reporting the directory as root', async () => {
    const ckpt = join(dir, 'ckpt');
    expect((await load({ lora_name: 'ckpt', lora_path: ckpt })).status).toBe(200);
    expect(engine.loaded.get('ckpt')).toBe(join(ckpt, 'adapter.gguf'));
    expect((await listModels())[1]).toMatchObject({ id: 'ckpt', root: ckpt, parent: 'base' });
  });

  it('answers a missing path, or a directory without adapter.gguf, with vLLM’s 404', async () => {
    for (const path of [join(dir, 'nope'), join(dir, 'peft-only')]) {
      const response = await load({ lora_name: 'x', lora_path: path });
      expect(response.status).toBe(404);
      expect(errorOf(response)).toEqual({
        message: `Loading lora x failed: No adapter found for ${path}`,
        type: 'NotFoundError',
        param: null,
        code: 404,
      });
    }
    expect(engine.loaded.size).toBe(0);
    expect(await listModels()).toHaveLength(1);
  });

  it('refuses a file the engine cannot load as a LoRA with a 400 carrying its message, registering nothing', async () => {
    const file = join(dir, 'text.gguf');
    const response = await load({ lora_name: 'junk', lora_path: file });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toMatchObject({
      type: 'BadRequestError',
      code: 400,
      message: `Loading lora junk failed: Failed to initialize LoRA adapter "${file}"`,
    });
    expect(await listModels()).toHaveLength(1);
    expect((await chat('junk')).status).toBe(404);
  });

  it('refuses a duplicate name unless load_inplace, which swaps the adapter (and keeps it if the new one fails)', async () => {
    await load({ lora_name: 'a', lora_path: join(dir, 'v1.gguf') });
    const duplicate = await load({ lora_name: 'a', lora_path: join(dir, 'v2.gguf') });
    expect(duplicate.status).toBe(400);
    expect(errorOf(duplicate)).toMatchObject({
      type: 'InvalidUserInput',
      message:
        "The lora adapter 'a' has already been loaded. If you want to load the adapter in place, set " +
        "'load_inplace' to True.",
    });

    const failed = await load({ lora_name: 'a', lora_path: join(dir, 'text.gguf'), load_inplace: true });
    expect(failed.status).toBe(400);
    expect(engine.loaded.get('a')).toBe(join(dir, 'v1.gguf'));

    const inPlace = await load({ lora_name: 'a', lora_path: join(dir, 'v2.gguf'), load_inplace: true });
    expect(inPlace.status).toBe(200);
    expect(engine.loaded.get('a')).toBe(join(dir, 'v2.gguf'));
    expect((await listModels()).map((card) => [card.id, card.root])).toEqual([
      ['base', '/models/base.gguf'],
      ['a', join(dir, 'v2.gguf')],
    ]);
  });

  it('refuses a load beyond the cap with a 400 (a missing path is still a 404), while an in-place swap at the cap still loads', async () => {
    await load({ lora_name: 'a', lora_path: join(dir, 'v1.gguf') });
    await load({ lora_name: 'b', lora_path: join(dir, 'v1.gguf') });
    const third = await load({ lora_name: 'c', lora_path: join(dir, 'v2.gguf') });
    expect(third.status).toBe(400);
    expect(errorOf(third)).toMatchObject({
      type: 'BadRequestError',
      message: expect.stringMatching(/MODEL_MAX_LORAS/),
    });
    expect([...engine.loaded.keys()]).toEqual(['a', 'b']);
    // At the cap, a path with no adapter is still told as such.
    expect((await load({ lora_name: 'd', lora_path: join(dir, 'missing.gguf') })).status).toBe(404);
    expect((await load({ lora_name: 'b', lora_path: join(dir, 'v2.gguf'), load_inplace: true })).status).toBe(
      200,
    );
    expect((await unload({ lora_name: 'a' })).status).toBe(200);
    expect((await load({ lora_name: 'c', lora_path: join(dir, 'v2.gguf') })).status).toBe(200);
  });

  it('refuses requests without a name or path with vLLM’s 400s', async () => {
    const empty = await load({ lora_name: '', lora_path: join(dir, 'v1.gguf') });
    expect(errorOf(empty)).toMatchObject({
      code: 400,
      type: 'InvalidUserInput',
      message: "Both 'lora_name' and 'lora_path' must be provided.",
    });
    expect(errorOf(await load({ lora_name: 'x' }))).toMatchObject({ code: 400, param: 'body.lora_path' });
    expect(errorOf(await unload({ lora_name: '' }))).toMatchObject({
      code: 400,
      message: "'lora_name' needs to be provided to unload a LoRA adapter.",
    });
  });

  it('unloads an adapter, after which its model name is a 404; an unknown one is vLLM’s 404', async () => {
    await load({ lora_name: 'a', lora_path: join(dir, 'v1.gguf') });
    expect(await unload({ lora_name: 'a' })).toEqual({
      status: 200,
      text: "Success: LoRA adapter 'a' removed successfully.",
    });
    expect(engine.loaded.size).toBe(0);
    expect(await listModels()).toHaveLength(1);
    expect((await chat('a')).status).toBe(404);

    const unknown = await unload({ lora_name: 'ghost' });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({
      message: "The lora adapter 'ghost' cannot be found.",
      type: 'NotFoundError',
    });
  });

  it('queues loads and unloads behind the generation under way', async () => {
    engine.generationMs = 50;
    const generation = chat('base');
    await new Promise((resolve) => setTimeout(resolve, 10));
    await Promise.all([generation, load({ lora_name: 'a', lora_path: join(dir, 'v1.gguf') })]);
    expect(engine.events).toEqual(['generate:base', 'generated', 'load:a']);
  });

  it('answers the LoRA paths only to POST', async () => {
    expect((await fetch(`${baseUrl}/load_lora_adapter`)).status).toBe(405);
    expect((await fetch(`${baseUrl}/unload_lora_adapter`)).status).toBe(405);
  });
});
