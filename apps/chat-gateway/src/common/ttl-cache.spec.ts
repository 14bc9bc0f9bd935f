import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  let now = 0;
  beforeEach(() => (now = 0));

  it('loads once while fresh, again after the ttl', async () => {
    const cache = new TtlCache<string, number>(1_000, { maxEntries: 10, now: () => now });
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    now = 1_001;
    expect(await cache.get('a', load)).toBe(2);
  });

  it('forgets failures and deleted keys', async () => {
    const cache = new TtlCache<string, number>(1_000, { maxEntries: 10, now: () => now });
    await expect(cache.get('a', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('a', async () => 7)).toBe(7);
    cache.delete('a');
    expect(await cache.get('a', async () => 8)).toBe(8);
  });

  describe('serving stale values while announced changes delete them', () => {
    const stale = () => new TtlCache<string, number>(1_000, { now: () => now, serveStale: true });

    it('serves the expired value at once and reloads it once in the background, after the caller', async () => {
      const cache = stale();
      let loads = 0;
      const load = async () => ++loads;
      expect(await cache.get('a', load)).toBe(1);
      now = 1_001;
      expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
      expect(loads).toBe(1);
      await new Promise(setImmediate);
      expect(loads).toBe(2);
      expect(await cache.get('a', load)).toBe(2);
    });

    it('keeps the stale value when the reload fails', async () => {
      const cache = stale();
      await cache.get('a', async () => 1);
      now = 1_001;
      expect(await cache.get('a', () => Promise.reject(new Error('db down')))).toBe(1);
      await new Promise(setImmediate);
      expect(await cache.get('a', async () => 3)).toBe(1);
    });

    it('loads afresh after a delete, and a reload started before it cannot bring the old value back', async () => {
      const cache = stale();
      await cache.get('a', async () => 1);
      now = 1_001;
      let finishReload!: (value: number) => void;
      expect(await cache.get('a', () => new Promise((resolve) => (finishReload = resolve)))).toBe(1);
      await new Promise(setImmediate);
      cache.delete('a');
      expect(await cache.get('a', async () => 5)).toBe(5);
      finishReload(4);
      await new Promise(setImmediate);
      expect(await cache.get('a', async () => 6)).toBe(5);
    });
  });
});
