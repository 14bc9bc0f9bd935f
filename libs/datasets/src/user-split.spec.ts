import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { InvalidSnapshotError, splitByUser } from './user-split';

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { user?: string; extra_info?: { user: string } });

describe('splitByUser', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'split-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const shares = { heldout: 0.25, validation: 0.25 };

  it('puts every row of a user on one side, keeps every row, and is the same for the same seed', async () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ user: `u${i % 40}`, i }));
    const file = path.join(dir, 'pairs.jsonl');
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const split = await splitByUser([{ file }], dir, { ...shares, seed: 'echoloop' });
    const sides = await Promise.all([split.train, split.validation, split.heldout].map((f) => lines(f.path)));
    expect(sides.reduce((n, side) => n + side.length, 0)).toBe(200);
    expect(split.train.rows).toBe(sides[0]?.length);
    const users = sides.map((side) => new Set(side.map((r) => r.user)));
    for (const [i, a] of users.entries()) {
      for (const b of users.slice(i + 1)) expect([...a].some((u) => b.has(u))).toBe(false);
      // About a quarter or a half of the 40 users on each side, never none or all.
      expect(a.size).toBeGreaterThan(3);
      expect(a.size).toBeLessThan(32);
    }
    const again = await splitByUser([{ file }], await mkdtemp(path.join(dir, 'again-')), {
      ...shares,
      seed: 'echoloop',
    });
    expect(again.heldout.sha256).toBe(split.heldout.sha256);
    expect(again.validation.sha256).toBe(split.validation.sha256);
  });

  it('keeps a user on the same side as the data grows, so a held-out user is never trained on later', async () => {
    const first = path.join(dir, 'first.jsonl');
    const later = path.join(dir, 'later.jsonl');
    const row = (i: number) => JSON.stringify({ user: `u${i % 30}`, i });
    await writeFile(first, Array.from({ length: 60 }, (_, i) => row(i)).join('\n'));
    await writeFile(later, Array.from({ length: 90 }, (_, i) => row(i + 7)).join('\n'));
    const sideOf = async (file: string, out: string) => {
      const split = await splitByUser([{ file }], await mkdtemp(path.join(dir, out)), {
        ...shares,
        seed: 's',
      });
      const found = new Map<string, string>();
      for (const name of ['train', 'validation', 'heldout'] as const) {
        for (const r of await lines(split[name].path)) found.set(r.user ?? '', name);
      }
      return found;
    };
    const [before, after] = [await sideOf(first, 'a-'), await sideOf(later, 'b-')];
    for (const [user, side] of before) expect(after.get(user)).toBe(side);
  });

  it('samples a replay source stably and takes every row of the others', async () => {
    const fresh = path.join(dir, 'fresh.jsonl');
    const old = path.join(dir, 'old.jsonl');
    await writeFile(
      fresh,
      Array.from({ length: 40 }, (_, i) => JSON.stringify({ user: `n${i}` })).join('\n'),
    );
    await writeFile(old, Array.from({ length: 400 }, (_, i) => JSON.stringify({ user: `o${i}` })).join('\n'));
    const split = await splitByUser([{ file: fresh }, { file: old, keep: 0.25 }], dir, {
      ...shares,
      seed: 's',
    });
    expect(split.sampled.read).toBe(400);
    expect(split.sampled.kept).toBeGreaterThan(70);
    expect(split.sampled.kept).toBeLessThan(130);
    expect(split.train.rows + split.validation.rows + split.heldout.rows).toBe(40 + split.sampled.kept);
    const again = await splitByUser(
      [{ file: fresh }, { file: old, keep: 0.25 }],
      await mkdtemp(path.join(dir, 'r-')),
      {
        ...shares,
        seed: 's',
      },
    );
    expect(again.sampled.kept).toBe(split.sampled.kept);
  });

  it("reads VeRL rows' user from extra_info", async () => {
    const file = path.join(dir, 'verl.jsonl');
    const rows = Array.from({ length: 50 }, (_, i) => ({ extra_info: { user: `u${i % 5}` } }));
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'));
    const split = await splitByUser([{ file }], dir, { heldout: 0.5, validation: 0, seed: 's' });
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
    const options = { heldout: 0.2, validation: 0.2, seed: 's', schema };
    await expect(splitByUser([{ file }], dir, options)).rejects.toThrow(InvalidSnapshotError);
    await expect(splitByUser([{ file }], dir, options)).rejects.toThrow(/^row 2 /);
  });
});
