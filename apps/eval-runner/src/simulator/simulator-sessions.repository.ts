import { SimulatorSessionEntity } from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, LessThan } from 'typeorm';

/** The columns a new session is stored with; the database fills the rest (id, version, times). */
export type NewSimulatorSession = Pick<SimulatorSessionEntity, 'profileId' | 'session' | 'endReason'>;

/** Simulator sessions (RL rollouts) in `simulator_sessions`. */
@Injectable()
export class SimulatorSessionsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Deletes the sessions last updated before `cutoff`; how many went. */
  async deleteUpdatedBefore(cutoff: Date): Promise<number> {
    const result = await this.db
      .getRepository(SimulatorSessionEntity)
      .delete({ updatedAt: LessThan(cutoff) });
    return result.affected ?? 0;
  }

  /** Stores a new session; the saved row, with its id. */
  insert(values: NewSimulatorSession): Promise<SimulatorSessionEntity> {
    return this.db.getRepository(SimulatorSessionEntity).save(values);
  }

  find(id: string): Promise<SimulatorSessionEntity | null> {
    return this.db.getRepository(SimulatorSessionEntity).findOneBy({ id });
  }

  /** The session, which must exist (TypeORM's EntityNotFoundError otherwise). */
  get(id: string): Promise<SimulatorSessionEntity> {
    return this.db.getRepository(SimulatorSessionEntity).findOneByOrFail({ id });
  }

  /**
   * Replaces the session only when it is still at `version` (the one read before the turn); false when another
   * request changed it first.
   */
  async replaceAtVersion(
    id: string,
    version: number,
    changes: Pick<SimulatorSessionEntity, 'session' | 'endReason'>,
  ): Promise<boolean> {
    const updated = await this.db
      .getRepository(SimulatorSessionEntity)
      .createQueryBuilder()
      .update()
      // jsonb columns hold plain JSON; TypeORM's deep-partial type cannot see that.
      .set(changes as never)
      .where('id = :id AND version = :version', { id, version })
      .execute();
    return updated.affected === 1;
  }
}
