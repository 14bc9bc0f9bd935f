import { ServiceCallError } from '@echoloop/platform';
import { Test } from '@nestjs/testing';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { orchestratorEnv } from '../env';
import { JobFailure } from '../jobs/job-failure';
import { ORCHESTRATOR_ENV } from '../tokens';
import { BaseWeights } from './base-weights';
import { EngineAdapters } from './engine-adapters';

const ENDPOINTS = [{ baseUrl: 'http://127.0.0.1:18000/v1' }];

describe('BaseWeights', () => {
  let dir: string;
  let gguf: string;
  let sha: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'base-weights-'));
    gguf = path.join(dir, 'base.gguf');
    await writeFile(gguf, 'GGUF weights');
    sha = createHash('sha256').update('GGUF weights').digest('hex');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function setUp(roots: string[] | Error, env: Record<string, string> = {}) {
    const engines = {
      baseRoots: jest.fn(async () => {
        if (roots instanceof Error) throw roots;
        return roots;
      }),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        BaseWeights,
        { provide: EngineAdapters, useValue: engines },
        { provide: ORCHESTRATOR_ENV, useValue: orchestratorEnv.parse({ RL_BASE_GGUF: gguf, ...env }) },
      ],
    }).compile();
    return { weights: moduleRef.get(BaseWeights), engines };
  }

  it('passes when the endpoint serves the folder converted from the GGUF training reads, and says where', async () => {
    const root = `/cache/hf-base/${sha.slice(0, 16)}`;
    const { weights } = await setUp([root]);
    await expect(weights.verify(ENDPOINTS)).resolves.toEqual({
      ggufSha256: sha,
      served: [{ baseUrl: ENDPOINTS[0]?.baseUrl, root }],
    });
    await expect(weights.verify(ENDPOINTS, { what: 'the parent', sha256: sha })).resolves.toBeDefined();
  });

  it('fails the job when the endpoint serves other weights, or the parent was trained on another base', async () => {
    const other = await setUp(['/cache/hf-base/0123456789abcdef']);
    await expect(other.weights.verify(ENDPOINTS)).rejects.toMatchObject({
      code: 'base_mismatch',
      message: expect.stringContaining(
        `serves /cache/hf-base/0123456789abcdef, not the base ${sha.slice(0, 16)}`,
      ),
    });
    const { weights, engines } = await setUp([`/cache/hf-base/${sha.slice(0, 16)}`]);
    const parent = weights.verify(ENDPOINTS, { what: 'the parent rl-1', sha256: 'f'.repeat(64) });
    await expect(parent).rejects.toBeInstanceOf(JobFailure);
    await expect(parent).rejects.toThrow(`the parent rl-1 was trained on base ffffffffffffffff`);
    expect(engines.baseRoots).not.toHaveBeenCalled();
  });

  it('leaves an endpoint that is away to the retry, and a missing GGUF fails the job', async () => {
    const away = await setUp(new ServiceCallError('model server', null, 'connect ECONNREFUSED'));
    await expect(away.weights.verify(ENDPOINTS)).rejects.toBeInstanceOf(ServiceCallError);
    const missing = await setUp([], { RL_BASE_GGUF: path.join(dir, 'none.gguf') });
    await expect(missing.weights.verify(ENDPOINTS)).rejects.toMatchObject({ code: 'base_missing' });
  });
});
