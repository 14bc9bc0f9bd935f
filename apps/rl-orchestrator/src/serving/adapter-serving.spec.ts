import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { Test } from '@nestjs/testing';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ORCHESTRATOR_ENV } from '../tokens';
import { AdapterServing } from './adapter-serving';

describe('AdapterServing', () => {
  let first: FakeVllm;
  let second: FakeVllm;
  let serving: AdapterServing;
  let dir: string;
  const adapter = (name: string) => path.join(dir, name);

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'adapters-'));
    // The first endpoint takes any path (as one that reads adapters from elsewhere would); the second checks it.
    first = await startFakeVllm({ model: 'base' });
    second = await startFakeVllm({ model: 'base', checkAdapterPaths: true });
    const module = await Test.createTestingModule({
      providers: [
        AdapterServing,
        {
          provide: ORCHESTRATOR_ENV,
          useValue: {
            LLM_BASE_URL: first.url,
            CHECKPOINT_ALLOWED_HOSTS: [new URL(second.url).host],
            CHECKPOINT_API_KEY_ENVS: ['LLM_API_KEY'],
          },
        },
      ],
    }).compile();
    serving = module.get(AdapterServing);
  });

  afterEach(async () => {
    await Promise.all([first.close(), second.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  const loads = (server: FakeVllm) =>
    server.requests.filter((r) => r.path === '/v1/load_lora_adapter').map((r) => r.body);
  const endpoints = () => [{ baseUrl: first.url }, { baseUrl: second.url }];

  it('loads an adapter into every endpoint, never in place', async () => {
    await mkdirs('ckpt-1');
    await serving.load('ckpt-1', adapter('ckpt-1'), endpoints());
    for (const server of [first, second]) {
      expect(server.loadedAdapters).toEqual([{ name: 'ckpt-1', path: adapter('ckpt-1') }]);
      expect(loads(server)).toEqual([{ lora_name: 'ckpt-1', lora_path: adapter('ckpt-1') }]);
    }
  });

  it('takes a second load of the same adapter from the same path as done (a retry whose first try landed)', async () => {
    await mkdirs('ckpt-1');
    await serving.load('ckpt-1', adapter('ckpt-1'), endpoints());
    await expect(serving.load('ckpt-1', adapter('ckpt-1'), endpoints())).resolves.toBeUndefined();
    expect(first.loadedAdapters).toEqual([{ name: 'ckpt-1', path: adapter('ckpt-1') }]);
  });

  it('never replaces the weights behind a name: another path under it fails, and the holder stays served', async () => {
    await mkdirs('old', 'new');
    await serving.load('ckpt-1', adapter('old'), [{ baseUrl: second.url }]);
    await expect(serving.load('ckpt-1', adapter('new'), endpoints())).rejects.toThrow(/already been loaded/);
    // Loaded on the first endpoint, refused on the second: undone on the first, the second's holder untouched.
    expect(first.loadedAdapters).toEqual([]);
    expect(second.loadedAdapters).toEqual([{ name: 'ckpt-1', path: adapter('old') }]);
  });

  it('is all or nothing: an endpoint that cannot find the adapter undoes the load on the others', async () => {
    await expect(serving.load('ckpt-2', adapter('ckpt-2'), endpoints())).rejects.toThrow(/No adapter found/);
    expect(loads(first)).toHaveLength(1);
    expect([first.loadedAdapters, second.loadedAdapters]).toEqual([[], []]);
  });

  async function mkdirs(...names: string[]) {
    for (const name of names) await mkdir(adapter(name));
  }
});
