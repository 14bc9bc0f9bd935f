import { TtlCache } from './ttl-cache';

describe('TtlCache', () => {
  let now = 0;
  beforeEach(() => (now = 0));

  it('loads once while fresh, again after the ttl', async () => {
    const cache = new TtlCache<string, number>(1_000, 10, () => now);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get('a', load), cache.get('a', load)])).toEqual([1, 1]);
    now = 1_001;
    expect(await cache.get('a', load)).toBe(2);
  });

  it('forgets failures and deleted keys', async () => {
    const cache = new TtlCache<string, number>(1_000, 10, () => now);
    await expect(cache.get('a', () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    expect(await cache.get('a', async () => 7)).toBe(7);
    cache.delete('a');
    expect(await cache.get('a', async () => 8)).toBe(8);
  });
});
