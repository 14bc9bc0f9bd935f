import { EvaluationEpisodeEntity } from '@echoloop/persistence';
import type { EpisodeResult } from '@echoloop/sentient';
import type { DataSource } from 'typeorm';
import type { EpisodeStore } from '../sentient/evaluation';

/** Episodes of one evaluation in `evaluation_episodes`: a restarted run skips the stored ones. */
export function dbEpisodeStore(db: DataSource, evaluationId: string): EpisodeStore {
  const repo = db.getRepository(EvaluationEpisodeEntity);
  return {
    async finished() {
      const rows = await repo.findBy({ evaluationId });
      return new Map(rows.map((row) => [row.profileId, row.episode as unknown as EpisodeResult]));
    },
    async save(episode) {
      await repo.upsert({ evaluationId, profileId: episode.profileId, episode: episode as never }, [
        'evaluationId',
        'profileId',
      ]);
    },
  };
}
