import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';

// Needs the local model server: `bash tools/stack/model.sh up` (or MODEL_BASE_URL pointing at one).
const baseURL = process.env['MODEL_BASE_URL'] ?? 'http://127.0.0.1:18000/v1';
const client = new OpenAI({ baseURL, apiKey: process.env['MODEL_API_KEY'] ?? 'unused', maxRetries: 0 });
const messages = [
  { role: 'system' as const, content: 'You are a friendly companion. Answer in one or two sentences.' },
  { role: 'user' as const, content: 'I had a long day at work. Can you cheer me up?' },
];

describe('local model server (real SmolLM2 via node-llama-cpp)', () => {
  let model: string;
  let modelRoot: string | undefined;
  beforeAll(async () => {
    const models = await client.models.list();
    const first = models.data[0];
    if (!first) throw new Error(`${baseURL}/models lists no model`);
    model = first.id;
    const root: unknown = Reflect.get(first, 'root');
    modelRoot = typeof root === 'string' ? resolve(root) : undefined;
  });

  it('streams a completion with a final usage chunk, capped by max_tokens', async () => {
    const stream = await client.chat.completions.create({
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 24,
      temperature: 0,
    });
    const deltas: string[] = [];
    let finishReason: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    let chunksAfterUsage = 0;
    for await (const chunk of stream) {
      if (usage) chunksAfterUsage += 1;
      for (const choice of chunk.choices) {
        if (choice.delta.content) deltas.push(choice.delta.content);
        finishReason = choice.finish_reason ?? finishReason;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('').trim().length).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(finishReason);
    expect(chunksAfterUsage).toBe(0);
    expect(usage?.prompt_tokens).toBeGreaterThan(20);
    expect(usage?.prompt_tokens).toBeLessThan(100);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(usage?.completion_tokens).toBeLessThanOrEqual(24);
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
  });

  it('stops at exactly max_tokens with finish_reason length when the cap is small', async () => {
    const completion = await client.chat.completions.create({
      model,
      messages,
      max_tokens: 3,
      temperature: 0,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(3);
  });

  it('answers without streaming', async () => {
    const completion = await client.chat.completions.create({
      model,
      messages,
      max_tokens: 16,
      temperature: 0,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(model);
    expect(completion.choices[0]?.message.role).toBe('assistant');
    expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(20);
  });

  it('follows a json_schema response_format (guided decoding)', async () => {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: 'user', content: 'How do you feel today, and how much energy do you have from 1 to 5?' },
      ],
      max_tokens: 64,
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'mood',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              mood: { type: 'string', enum: ['happy', 'sad', 'tired'] },
              energy: { type: 'integer', minimum: 1, maximum: 5 },
            },
            required: ['mood', 'energy'],
            additionalProperties: false,
          },
        },
      },
    });
    const answer = JSON.parse(completion.choices[0]?.message.content ?? '');
    expect(['happy', 'sad', 'tired']).toContain(answer.mood);
    expect([1, 2, 3, 4, 5]).toContain(answer.energy);
  });

  it('answers a schema that cannot become a grammar with a 400', async () => {
    const request = client.chat.completions.create({
      model,
      messages,
      max_tokens: 4,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'many', schema: { type: 'array', items: { type: 'null' }, minItems: 5000 } },
      },
    });
    await expect(request).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(request).rejects.toMatchObject({
      status: 400,
      error: { code: 400, type: 'BadRequestError' },
    });
  });

  it('answers bad input with a 400 in vLLM’s error shape', async () => {
    const request = client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: -1,
    });
    await expect(request).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(request).rejects.toMatchObject({
      status: 400,
      error: { code: 400, param: 'body.max_tokens' },
    });
  });

  it('answers an unknown model with 404', async () => {
    await expect(
      client.chat.completions.create({ model: 'no-such-model', messages, max_tokens: 4 }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  describe('LoRA adapters that llama.cpp cannot load', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'model-server-int-lora-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const load = async (name: string, path: string) => {
      const response = await fetch(`${baseURL}/load_lora_adapter`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lora_name: name, lora_path: path }),
      });
      return { status: response.status, body: (await response.json()) as { error: Record<string, unknown> } };
    };
    const listedIds = async () => (await client.models.list()).data.map((card) => card.id);

    it('refuses a text file named .gguf with a 400, and still answers the base model', async () => {
      const file = join(dir, 'not-a-lora.gguf');
      writeFileSync(file, 'this is a text file, not a GGUF LoRA\n');
      const refused = await load('int-spec-not-a-lora', file);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        code: 400,
        type: 'BadRequestError',
        message: expect.stringContaining('Loading lora int-spec-not-a-lora failed'),
      });
      expect(await listedIds()).not.toContain('int-spec-not-a-lora');
      await expect(
        client.chat.completions.create({ model: 'int-spec-not-a-lora', messages, max_tokens: 4 }),
      ).rejects.toBeInstanceOf(OpenAI.NotFoundError);

      const completion = await client.chat.completions.create({
        model,
        messages,
        max_tokens: 4,
        temperature: 0,
      });
      expect(completion.choices[0]?.message.content?.length).toBeGreaterThan(0);
    });

    it('refuses a GGUF that is a model, not a LoRA, with a 400', async () => {
      if (modelRoot === undefined || !existsSync(modelRoot)) return; // a server on another machine
      const refused = await load('int-spec-model-as-lora', modelRoot);
      expect(refused.status).toBe(400);
      expect(await listedIds()).not.toContain('int-spec-model-as-lora');
    });

    it('answers a directory without adapter.gguf with vLLM’s 404', async () => {
      const refused = await load('int-spec-empty-dir', dir);
      expect(refused.status).toBe(404);
      expect(refused.body.error).toMatchObject({
        type: 'NotFoundError',
        message: `Loading lora int-spec-empty-dir failed: No adapter found for ${dir}`,
      });
    });
  });
});
