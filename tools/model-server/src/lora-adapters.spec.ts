import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { AdapterLoadError } from './chat-engine';
import { LoraAdapters } from './lora-adapters';

/** Loads any file except one whose text starts "not a lora". */
class FakeAdapterEngine {
  readonly loaded = new Map<string, string>();

  async loadAdapter(name: string, file: string): Promise<void> {
    if (readFileSync(file, 'utf8').startsWith('not a lora'))
      throw new AdapterLoadError('Failed to initialize');
    this.loaded.set(name, file);
  }

  async unloadAdapter(name: string): Promise<void> {
    this.loaded.delete(name);
  }
}

describe('LoraAdapters persistence', () => {
  let dir: string;
  let statePath: string;
  let logLines: Array<Record<string, unknown>>;
  const logger = () =>
    pino(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(
            ...chunk
              .toString()
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line)),
          );
          done();
        },
      }),
    );
  const registry = (engine = new FakeAdapterEngine(), persisted = true) => ({
    engine,
    adapters: new LoraAdapters({
      engine,
      maxLoras: 4,
      logger: logger(),
      ...(persisted ? { statePath } : {}),
    }),
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lora-adapters-'));
    statePath = join(dir, 'state', 'model-lora-adapters.json');
    logLines = [];
    writeFileSync(join(dir, 'v1.gguf'), 'lora v1');
    mkdirSync(join(dir, 'ckpt'));
    writeFileSync(join(dir, 'ckpt', 'adapter.gguf'), 'lora from a job');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes name → path on every load and unload, and a restart restores them', async () => {
    const first = registry();
    expect(await first.adapters.load('a', join(dir, 'v1.gguf'), false)).toBeUndefined();
    expect(await first.adapters.load('b', join(dir, 'ckpt'), false)).toBeUndefined();
    expect(await first.adapters.load('c', join(dir, 'v1.gguf'), false)).toBeUndefined();
    expect(await first.adapters.unload('c')).toBeUndefined();
    expect(JSON.parse(readFileSync(statePath, 'utf8'))).toEqual({
      adapters: [
        { name: 'a', path: join(dir, 'v1.gguf') },
        { name: 'b', path: join(dir, 'ckpt') },
      ],
    });
    expect(readdirSync(join(dir, 'state'))).toEqual(['model-lora-adapters.json']);

    const restarted = registry();
    await restarted.adapters.restore();
    expect(restarted.adapters.list().map(({ name, path }) => ({ name, path }))).toEqual([
      { name: 'a', path: join(dir, 'v1.gguf') },
      { name: 'b', path: join(dir, 'ckpt') },
    ]);
    expect(restarted.engine.loaded).toEqual(
      new Map([
        ['a', join(dir, 'v1.gguf')],
        ['b', join(dir, 'ckpt', 'adapter.gguf')],
      ]),
    );
  });

  it('skips, with a warning, an adapter whose file vanished or no longer loads', async () => {
    const first = registry();
    await first.adapters.load('gone', join(dir, 'v1.gguf'), false);
    await first.adapters.load('broken', join(dir, 'ckpt'), false);
    await first.adapters.load('kept', join(dir, 'ckpt'), false);
    rmSync(join(dir, 'v1.gguf'));
    writeFileSync(join(dir, 'ckpt', 'adapter.gguf'), 'not a lora any more');
    writeFileSync(join(dir, 'kept.gguf'), 'lora');
    writeFileSync(
      statePath,
      JSON.stringify({
        adapters: [
          { name: 'gone', path: join(dir, 'v1.gguf') },
          { name: 'broken', path: join(dir, 'ckpt') },
          { name: 'kept', path: join(dir, 'kept.gguf') },
        ],
      }),
    );

    const restarted = registry();
    await restarted.adapters.restore();
    expect(restarted.adapters.list().map((adapter) => adapter.name)).toEqual(['kept']);
    const warnings = logLines.filter((line) => line['level'] === 40);
    expect(warnings).toEqual([
      expect.objectContaining({ name: 'gone', msg: 'LoRA adapter not restored', reason: expect.any(String) }),
      expect.objectContaining({
        name: 'broken',
        msg: 'LoRA adapter not restored',
        reason: expect.any(String),
      }),
    ]);
  });

  it('starts empty, with a warning, from a state file it cannot parse, and quietly when there is none', async () => {
    const none = registry();
    await none.adapters.restore();
    expect(none.adapters.list()).toEqual([]);
    expect(logLines).toEqual([]);

    mkdirSync(join(dir, 'state'));
    writeFileSync(statePath, '{"adapters": [');
    const corrupt = registry();
    await corrupt.adapters.restore();
    expect(corrupt.adapters.list()).toEqual([]);
    expect(logLines).toEqual([expect.objectContaining({ level: 40, statePath })]);
  });

  it('keeps nothing on disk without a state path', async () => {
    const { adapters } = registry(new FakeAdapterEngine(), false);
    await adapters.load('a', join(dir, 'v1.gguf'), false);
    await adapters.restore();
    expect(adapters.list()).toHaveLength(1);
    expect(existsSync(join(dir, 'state'))).toBe(false);
  });

  it('still serves an adapter whose state cannot be written, logging the error', async () => {
    writeFileSync(join(dir, 'state'), 'a file where the directory should be');
    const { adapters } = registry();
    expect(await adapters.load('a', join(dir, 'v1.gguf'), false)).toBeUndefined();
    expect(adapters.has('a')).toBe(true);
    expect(logLines).toEqual([expect.objectContaining({ level: 50, msg: 'LoRA adapter state not written' })]);
  });
});
