import {
  type ExperimentArm,
  ExperimentAuditEntity,
  ExperimentEntity,
  type ExperimentStatus,
} from '@echoloop/persistence';
import {
  ConflictException,
  Injectable,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import { ExperimentRouter } from './experiment-router';
import type { CreateExperimentInput } from './experiment.schemas';

const conflict = (code: string, message: string) => new ConflictException({ error: { code, message } });

/**
 * Experiments over checkpoints: draft → running → stopped or promoted, one running at a time (a user is in at
 * most one experiment, so its arm decides their checkpoint). Every change is audited in its own transaction.
 */
@Injectable()
export class ExperimentsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly checkpoints: CheckpointsService,
    private readonly router: ExperimentRouter,
  ) {}

  async create(actorId: string, input: CreateExperimentInput): Promise<ExperimentEntity> {
    for (const arm of input.arms) {
      const checkpoint = await this.checkpoints.get(arm.checkpointId).catch(() => null);
      if (!checkpoint || checkpoint.status === 'retired') {
        throw new UnprocessableEntityException({
          error: {
            code: 'invalid_checkpoint',
            message: `Arm ${arm.id}: checkpoint ${arm.checkpointId} is not servable`,
          },
        });
      }
    }
    return this.db.transaction(async (tx) => {
      const experiment = await tx.getRepository(ExperimentEntity).save({
        name: input.name,
        description: input.description ?? null,
        seed: input.seed ?? randomBytes(8).toString('hex'),
        arms: input.arms,
        audience: input.audience ?? { trafficPercent: 100 },
        createdBy: actorId,
      });
      await audit(tx, experiment.id, actorId, 'created', { input });
      return experiment;
    });
  }

  list(): Promise<ExperimentEntity[]> {
    return this.db.getRepository(ExperimentEntity).find({ order: { createdAt: 'DESC' } });
  }

  async get(id: string, manager: EntityManager = this.db.manager): Promise<ExperimentEntity> {
    const experiment = await manager.getRepository(ExperimentEntity).findOneBy({ id });
    if (!experiment) {
      throw new NotFoundException({ error: { code: 'not_found', message: 'Experiment not found' } });
    }
    return experiment;
  }

  auditLog(id: string): Promise<ExperimentAuditEntity[]> {
    return this.db
      .getRepository(ExperimentAuditEntity)
      .find({ where: { experimentId: id }, order: { at: 'ASC' } });
  }

  start(actorId: string, id: string): Promise<ExperimentEntity> {
    return this.transition(actorId, id, ['draft'], 'running', 'started', async (tx) => {
      const running = await tx.getRepository(ExperimentEntity).countBy({ status: 'running' });
      if (running > 0) throw conflict('experiment_running', 'Another experiment is running: stop it first');
      return { startedAt: new Date() };
    });
  }

  /** Stops a running experiment; `actorId` null means a guardrail stopped it. */
  stop(actorId: string | null, id: string, reason: string): Promise<ExperimentEntity> {
    return this.transition(actorId, id, ['running'], 'stopped', 'stopped', async () => ({
      endedAt: new Date(),
      stopReason: reason,
    }));
  }

  /** The arm's checkpoint becomes the default for everyone, in the same transaction. */
  promote(actorId: string, id: string, armId: string): Promise<ExperimentEntity> {
    return this.transition(
      actorId,
      id,
      ['running', 'stopped'],
      'promoted',
      'promoted',
      async (tx, experiment) => {
        const arm = experiment.arms.find((a) => a.id === armId);
        if (!arm) throw new NotFoundException({ error: { code: 'not_found', message: `No arm ${armId}` } });
        await this.checkpoints.setDefault(arm.checkpointId, tx);
        return {
          promotedArmId: armId,
          endedAt: experiment.endedAt ?? new Date(),
          details: { armId, checkpointId: arm.checkpointId },
        };
      },
    );
  }

  /** New weights for new users; users already assigned keep their arm. */
  async setWeights(actorId: string, id: string, weights: Record<string, number>): Promise<ExperimentEntity> {
    return this.db
      .transaction(async (tx) => {
        const experiment = await this.lockedGet(tx, id);
        if (experiment.status !== 'draft' && experiment.status !== 'running') {
          throw conflict('experiment_ended', `The experiment is ${experiment.status}`);
        }
        const unknown = Object.keys(weights).filter((armId) => !experiment.arms.some((a) => a.id === armId));
        if (unknown.length > 0) {
          throw new UnprocessableEntityException({
            error: { code: 'unknown_arm', message: `No arm ${unknown.join(', ')}` },
          });
        }
        const arms: ExperimentArm[] = experiment.arms.map((a) => ({
          ...a,
          weight: weights[a.id] ?? a.weight,
        }));
        await tx.getRepository(ExperimentEntity).update({ id }, { arms });
        await audit(tx, id, actorId, 'weights_changed', { from: experiment.arms, to: arms });
        return this.get(id, tx);
      })
      .finally(() => this.router.invalidate());
  }

  private transition(
    actorId: string | null,
    id: string,
    from: readonly ExperimentStatus[],
    to: ExperimentStatus,
    action: string,
    apply: (
      tx: EntityManager,
      experiment: ExperimentEntity,
    ) => Promise<Partial<ExperimentEntity> & { details?: Record<string, unknown> }>,
  ): Promise<ExperimentEntity> {
    return this.db
      .transaction(async (tx) => {
        const experiment = await this.lockedGet(tx, id);
        if (!from.includes(experiment.status)) {
          throw conflict('invalid_transition', `A ${experiment.status} experiment cannot be ${action}`);
        }
        const { details, ...changes } = await apply(tx, experiment);
        await tx.getRepository(ExperimentEntity).update({ id }, { ...changes, status: to });
        await audit(tx, id, actorId, action, { from: experiment.status, to, ...changes, ...details });
        return this.get(id, tx);
      })
      .finally(() => this.router.invalidate());
  }

  private async lockedGet(tx: EntityManager, id: string): Promise<ExperimentEntity> {
    const experiment = await tx
      .getRepository(ExperimentEntity)
      .createQueryBuilder('e')
      .setLock('pessimistic_write')
      .where('e.id = :id', { id })
      .getOne();
    if (!experiment)
      throw new NotFoundException({ error: { code: 'not_found', message: 'Experiment not found' } });
    return experiment;
  }
}

async function audit(
  tx: EntityManager,
  experimentId: string,
  actorId: string | null,
  action: string,
  details: Record<string, unknown>,
): Promise<void> {
  await tx
    .getRepository(ExperimentAuditEntity)
    .insert({ experimentId, actorId, action, details: details as never });
}
