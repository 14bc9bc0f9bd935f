import { CheckpointEntity, EvaluationEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { EpisodeStore } from '../sentient/evaluation';
import { dbEpisodeStore } from './db-episode-store';
import type { ListEvaluationsQuery } from '@echoloop/vocabulary';

/** The columns a new evaluation is created with; the database fills the rest (id, status running, times). */
export type NewEvaluation = Pick<
  EvaluationEntity,
  'checkpointId' | 'suite' | 'profileIds' | 'policy' | 'simulator' | 'mode' | 'judge' | 'maxTurns'
>;

/** Evaluations, their episodes (through the episode store) and the checkpoints they evaluate. */
@Injectable()
export class EvaluationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The evaluations still running: a restarted runner resumes them. */
  unfinished(): Promise<EvaluationEntity[]> {
    return this.db.getRepository(EvaluationEntity).findBy({ status: 'running' });
  }

  insert(values: NewEvaluation): Promise<EvaluationEntity> {
    return this.db.getRepository(EvaluationEntity).save(values);
  }

  /** The newest first, at most `limit`, optionally of one status. */
  list(query: ListEvaluationsQuery): Promise<EvaluationEntity[]> {
    return this.db.getRepository(EvaluationEntity).find({
      ...(query.status && { where: { status: query.status } }),
      order: { createdAt: 'DESC', id: 'DESC' },
      take: query.limit,
    });
  }

  find(id: string): Promise<EvaluationEntity | null> {
    return this.db.getRepository(EvaluationEntity).findOneBy({ id });
  }

  async markFailed(id: string, error: string, finishedAt: Date): Promise<void> {
    await this.db.getRepository(EvaluationEntity).update({ id }, { status: 'failed', error, finishedAt });
  }

  async markFinished(id: string, metrics: object, finishedAt: Date): Promise<void> {
    // jsonb columns hold plain JSON; TypeORM's deep-partial type cannot see that.
    await this.db
      .getRepository(EvaluationEntity)
      .update({ id }, { status: 'finished', metrics: metrics as never, finishedAt });
  }

  /** The evaluation's finished episodes, where its run stores them as they end. */
  episodes(evaluationId: string): EpisodeStore {
    return dbEpisodeStore(this.db, evaluationId);
  }

  findCheckpoint(id: string): Promise<CheckpointEntity | null> {
    return this.db.getRepository(CheckpointEntity).findOneBy({ id });
  }

  /** The checkpoint, which must exist (TypeORM's EntityNotFoundError otherwise). */
  getCheckpoint(id: string): Promise<CheckpointEntity> {
    return this.db.getRepository(CheckpointEntity).findOneByOrFail({ id });
  }
}
