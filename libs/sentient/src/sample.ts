import { type SentientProfile } from './profile';

/**
 * The first `limit` profiles of a pool taken in turn from each hidden need (in file order within a need), so a
 * small run still covers every need instead of the first one in the file.
 */
export function spreadByHiddenNeed(
  profiles: readonly SentientProfile[],
  limit = profiles.length,
): SentientProfile[] {
  const byNeed = new Map<string, SentientProfile[]>();
  for (const profile of profiles)
    byNeed.set(profile.hiddenNeed, [...(byNeed.get(profile.hiddenNeed) ?? []), profile]);
  const queues = [...byNeed.values()];
  const picked: SentientProfile[] = [];
  for (let round = 0; picked.length < limit && queues.some((q) => round < q.length); round++) {
    for (const queue of queues) {
      const profile = queue[round];
      if (profile && picked.length < limit) picked.push(profile);
    }
  }
  return picked;
}
