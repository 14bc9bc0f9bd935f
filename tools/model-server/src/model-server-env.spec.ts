import { readModelServerEnv } from './model-server-env';

describe('readModelServerEnv', () => {
  it('applies the defaults around a model path that exists', () => {
    expect(readModelServerEnv({ MODEL_PATH: __filename })).toEqual({
      ok: true,
      env: {
        MODEL_PATH: __filename,
        MODEL_NAME: 'smollm2-135m-instruct',
        MODEL_HOST: '127.0.0.1',
        MODEL_PORT: 18_000,
        MODEL_CONTEXT_SIZE: 2048,
        MODEL_THREADS: 2,
        MODEL_MAX_LORAS: 4,
      },
    });
  });

  it('reads numbers from strings', () => {
    const result = readModelServerEnv({ MODEL_PATH: __filename, MODEL_PORT: '18001', MODEL_THREADS: '4' });
    expect(result).toMatchObject({ ok: true, env: { MODEL_PORT: 18_001, MODEL_THREADS: 4 } });
  });

  it('reads the LoRA cap and the LoRA state file', () => {
    const result = readModelServerEnv({
      MODEL_PATH: __filename,
      MODEL_MAX_LORAS: '2',
      MODEL_LORA_STATE: '.infra/state/model-lora-adapters.json',
    });
    expect(result).toMatchObject({
      ok: true,
      env: { MODEL_MAX_LORAS: 2, MODEL_LORA_STATE: '.infra/state/model-lora-adapters.json' },
    });
    expect(readModelServerEnv({ MODEL_PATH: __filename, MODEL_MAX_LORAS: '0' })).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^MODEL_MAX_LORAS: /)],
    });
  });

  it('names MODEL_PATH when it is missing or does not exist', () => {
    expect(readModelServerEnv({})).toEqual({
      ok: false,
      problems: ['MODEL_PATH is required: the path of the GGUF file to serve'],
    });
    expect(readModelServerEnv({ MODEL_PATH: '/no/such/model.gguf' })).toEqual({
      ok: false,
      problems: ['MODEL_PATH does not exist: /no/such/model.gguf'],
    });
  });

  it('names every other bad variable', () => {
    const result = readModelServerEnv({
      MODEL_PATH: __filename,
      MODEL_PORT: '99999',
      MODEL_CONTEXT_SIZE: 'big',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toHaveLength(2);
    expect(result.problems[0]).toMatch(/^MODEL_PORT: /);
    expect(result.problems[1]).toMatch(/^MODEL_CONTEXT_SIZE: /);
  });
});
