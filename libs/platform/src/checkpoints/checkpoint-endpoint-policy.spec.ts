import { z } from 'zod';
import {
  checkpointEndpointEnv,
  checkpointEndpointPolicy,
  checkpointEndpointProblems,
  CheckpointEndpointRefusedError,
  checkpointModelEndpoints,
} from './checkpoint-endpoint-policy';

const env = z.object({ LLM_BASE_URL: z.url(), ...checkpointEndpointEnv });
const policyOf = (vars: Record<string, string>) =>
  checkpointEndpointPolicy(env.parse({ LLM_BASE_URL: 'http://127.0.0.1:18000/v1', ...vars }));

describe('checkpoint endpoint policy', () => {
  it("allows LLM_BASE_URL's host and port and LLM_API_KEY with no configuration, and nothing else", () => {
    const policy = policyOf({});
    expect(
      checkpointEndpointProblems([{ baseUrl: 'http://127.0.0.1:18000/x', apiKeyEnv: 'LLM_API_KEY' }], policy),
    ).toEqual([]);
    expect(
      checkpointEndpointProblems(
        [
          { baseUrl: 'http://127.0.0.1:18001/v1' },
          { baseUrl: 'https://attacker.example/v1', apiKeyEnv: 'LLM_OTHER_KEY' },
        ],
        policy,
      ),
    ).toEqual([
      { path: 'endpoints.0.baseUrl', message: 'host 127.0.0.1:18001 is not in CHECKPOINT_ALLOWED_HOSTS' },
      { path: 'endpoints.1.baseUrl', message: 'host attacker.example is not in CHECKPOINT_ALLOWED_HOSTS' },
      { path: 'endpoints.1.apiKeyEnv', message: 'LLM_OTHER_KEY is not in CHECKPOINT_API_KEY_ENVS' },
    ]);
  });

  it('matches configured hosts on any port, or on the one port named (default ports included)', () => {
    const policy = policyOf({
      CHECKPOINT_ALLOWED_HOSTS: 'Models.Internal, vllm.lan:443',
      CHECKPOINT_API_KEY_ENVS: 'CHECKPOINT_LORA_KEY',
    });
    const ok = (baseUrl: string) => checkpointEndpointProblems([{ baseUrl }], policy).length === 0;
    expect(ok('http://models.internal:8000/v1')).toBe(true);
    expect(ok('https://MODELS.internal/v1')).toBe(true);
    expect(ok('https://vllm.lan/v1')).toBe(true);
    expect(ok('http://vllm.lan/v1')).toBe(false);
    expect(ok('http://models.internal.attacker.example/v1')).toBe(false);
    expect(ok('http://user:pw@models.internal/v1')).toBe(false);
    expect(ok('ftp://models.internal/v1')).toBe(false);
    expect(
      checkpointEndpointProblems(
        [{ baseUrl: 'http://models.internal/', apiKeyEnv: 'CHECKPOINT_LORA_KEY' }],
        policy,
      ),
    ).toEqual([]);
  });

  it('refuses variables outside LLM_* and CHECKPOINT_* and malformed hosts at start-up', () => {
    expect(env.safeParse({ LLM_BASE_URL: 'http://a/', CHECKPOINT_API_KEY_ENVS: 'JWT_SECRET' }).success).toBe(
      false,
    );
    expect(env.safeParse({ LLM_BASE_URL: 'http://a/', CHECKPOINT_ALLOWED_HOSTS: 'http://a/' }).success).toBe(
      false,
    );
  });

  it('hands out keys only for allowed endpoints, so a row stored under an older configuration sends nothing', () => {
    const source = { LLM_API_KEY: 'sk-llm', CHECKPOINT_X: 'sk-x' };
    const stored = {
      id: 'old',
      endpoints: [{ baseUrl: 'http://gone.example/v1', apiKeyEnv: 'LLM_API_KEY' }],
    };
    expect(() => checkpointModelEndpoints(stored, policyOf({}), source)).toThrow(
      CheckpointEndpointRefusedError,
    );
    expect(
      checkpointModelEndpoints(stored, policyOf({ CHECKPOINT_ALLOWED_HOSTS: 'gone.example' }), source),
    ).toEqual([{ baseUrl: 'http://gone.example/v1', apiKey: 'sk-llm' }]);
  });
});
