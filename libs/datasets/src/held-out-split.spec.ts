import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { InvalidSnapshotError, splitHeldOut } from './held-out-split';

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { user?: string; extra_info?: { user: string } });

describe('splitHeldOut', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'split-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('puts every row of a user on one side, keeps every row, and is the same for the same seed', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ user: `u${i % 40}`, i }));
    const file = path.join(dir, 'pairs.jsonl');
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const split = await splitHeldOut(file, dir, { fraction: 0.25, seed: 'job-1' });
    const [train, heldout] = [await lines(split.train.path), await lines(split.heldout.path)];
    expect(train.length + heldout.length).toBe(200);
    expect(split.train.rows).toBe(train.length);
    const trainUsers = new Set(train.map((r) => r.user));
    expect(heldout.some((r) => trainUsers.has(r.user))).toBe(false);
    // About a quarter of the 40 users, never none or all.
    const heldoutUsers = new Set(heldout.map((r) => r.user)).size;
    expect(heldoutUsers).toBeGreaterThan(3);
    expect(heldoutUsers).toBeLessThan(20);
    const again = await splitHeldOut(file, await mkdtemp(path.join(dir, 'again-')), {
      fraction: 0.25,
      seed: 'job-1',
    });
    expect(again.heldout.sha256).toBe(split.heldout.sha256);
  });

  it("reads VeRL rows' user from extra_info", async () => {
    const file = path.join(dir, 'verl.jsonl');
    const rows = Array.from({ length: 50 }, (_, i) => ({ extra_info: { user: `u${i % 5}` } }));
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const split = await splitHeldOut(file, dir, { fraction: 0.5, seed: 's' });
    const users = (rows: { extra_info?: { user: string } }[]) => new Set(rows.map((r) => r.extra_info?.user));
    const [train, heldout] = [users(await lines(split.train.path)), users(await lines(split.heldout.path))];
    expect([...heldout].some((u) => train.has(u))).toBe(false);
  });

  it('refuses a row that does not match the schema, naming it', async () => {
    const file = path.join(dir, 'bad.jsonl');
    await writeFile(
      file,
      [{ user: 'a', prompt: [] }, { user: 'b' }].map((r) => JSON.stringify(r)).join('\n'),
    );
    const schema = z.object({ user: z.string(), prompt: z.array(z.unknown()) });
    await expect(splitHeldOut(file, dir, { fraction: 0.2, seed: 's', schema })).rejects.toThrow(
      InvalidSnapshotError,
    );
    await expect(splitHeldOut(file, dir, { fraction: 0.2, seed: 's', schema })).rejects.toThrow(/^row 2 /);
  });
});
