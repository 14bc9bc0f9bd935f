import { CheckpointEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** Why a checkpoint could not become the default. */
export type DefaultRefusal = 'not_found' | 'retired';

/** The registry's statements that span rows: the configured default at start-up, and moving the default. */
@Injectable()
export class CheckpointsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Registers the configured checkpoint. A default chosen since (a promoted experiment arm) survives restarts; the
   * configured one fills a gap.
   */
  registerConfigured(
    configured: Pick<
      CheckpointEntity,
      'id' | 'modelName' | 'endpoints' | 'decoding' | 'contextTokens' | 'status'
    >,
  ): Promise<void> {
    return this.db.transaction(async (tx) => {
      const repo = tx.getRepository(CheckpointEntity);
      const current = await repo.findOneBy({ isDefault: true });
      const keepCurrent = current !== null && current.id !== configured.id && current.status !== 'retired';
      await repo.save({ ...configured, isDefault: !keepCurrent });
    });
  }

  /** Makes a checkpoint the default, inside the caller's transaction when given; why not, when it cannot be. */
  async setDefault(id: string, manager: EntityManager = this.db.manager): Promise<DefaultRefusal | null> {
    const repo = manager.getRepository(CheckpointEntity);
    const target = await repo.findOneBy({ id });
    if (!target) return 'not_found';
    if (target.status === 'retired') return 'retired';
    await repo.update({ isDefault: true }, { isDefault: false });
    await repo.update({ id }, { isDefault: true, status: 'active' });
    return null;
  }
}
