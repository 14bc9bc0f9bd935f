import type {
  ExperimentArm,
  ExperimentAuditEntity,
  ExperimentEntity,
  ExperimentStatus,
} from '@echoloop/persistence';
import {
  ConflictException,
  Injectable,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { CheckpointsService } from '../checkpoints/checkpoints.service';
import type { Decision } from './decision';
import { ExperimentRouter } from './experiment-router';
import type { CreateExperimentInput } from './experiment.schemas';
import { ExperimentsRepository, type ExperimentsTransaction } from './experiments.repository';

const conflict = (code: string, message: string) => new ConflictException({ error: { code, message } });

/**
 * Experiments over checkpoints: draft → running → stopped or promoted, one running at a time (a user is in at
 * most one experiment, so its arm decides their checkpoint). Every change is audited in its own transaction.
 */
@Injectable()
export class ExperimentsService {
  constructor(
    private readonly repository: ExperimentsRepository,
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
    return this.repository.transaction(async (tx) => {
      const experiment = await tx.insert({
        name: input.name,
        description: input.description ?? null,
        seed: input.seed ?? randomBytes(8).toString('hex'),
        arms: input.arms,
        audience: input.audience ?? { trafficPercent: 100 },
        createdBy: actorId,
      });
      await tx.audit({ experimentId: experiment.id, actorId, action: 'created', details: { input } });
      return experiment;
    });
  }

  list(): Promise<ExperimentEntity[]> {
    return this.repository.list();
  }

  async get(id: string): Promise<ExperimentEntity> {
    return found(await this.repository.find(id));
  }

  auditLog(id: string): Promise<ExperimentAuditEntity[]> {
    return this.repository.auditLog(id);
  }

  start(actorId: string, id: string): Promise<ExperimentEntity> {
    return this.transition(actorId, id, ['draft'], 'running', 'started', async (tx) => {
      const running = await tx.countWithStatus('running');
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

  /**
   * The arm's checkpoint becomes the default for everyone, in the same transaction. `actorId` null means the
   * experiment's own decision promoted it, for `reason`.
   */
  promote(actorId: string | null, id: string, armId: string, reason?: string): Promise<ExperimentEntity> {
    return this.transition(
      actorId,
      id,
      ['running', 'stopped'],
      'promoted',
      'promoted',
      async (tx, experiment) => {
        const arm = experiment.arms.find((a) => a.id === armId);
        if (!arm) throw new NotFoundException({ error: { code: 'not_found', message: `No arm ${armId}` } });
        await tx.setDefaultCheckpoint(arm.checkpointId);
        return {
          promotedArmId: armId,
          endedAt: experiment.endedAt ?? new Date(),
          details: { armId, checkpointId: arm.checkpointId, ...(reason && { reason }) },
        };
      },
    );
  }

  /** Records what the primary metric's test would decide, once per verdict, for someone to act on. */
  async recommend(id: string, decision: Decision): Promise<void> {
    const log = await this.repository.auditLog(id);
    const said = log.some(
      (entry) => entry.action === 'recommended' && entry.details?.['verdict'] === decision.verdict,
    );
    if (said) return;
    await this.repository.transaction((tx) =>
      tx.audit({ experimentId: id, actorId: null, action: 'recommended', details: { ...decision } }),
    );
  }

  /** New weights for new users; users already assigned keep their arm. */
  async setWeights(actorId: string, id: string, weights: Record<string, number>): Promise<ExperimentEntity> {
    return this.repository
      .transaction(async (tx) => {
        const experiment = found(await tx.lock(id));
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
        await tx.update(id, { arms });
        await tx.audit({
          experimentId: id,
          actorId,
          action: 'weights_changed',
          details: { from: experiment.arms, to: arms },
        });
        return found(await tx.find(id));
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
      tx: ExperimentsTransaction,
      experiment: ExperimentEntity,
    ) => Promise<Partial<ExperimentEntity> & { details?: Record<string, unknown> }>,
  ): Promise<ExperimentEntity> {
    return this.repository
      .transaction(async (tx) => {
        const experiment = found(await tx.lock(id));
        if (!from.includes(experiment.status)) {
          throw conflict('invalid_transition', `A ${experiment.status} experiment cannot be ${action}`);
        }
        const { details, ...changes } = await apply(tx, experiment);
        await tx.update(id, { ...changes, status: to });
        await tx.audit({
          experimentId: id,
          actorId,
          action,
          details: { from: experiment.status, to, ...changes, ...details },
        });
        return found(await tx.find(id));
      })
      .finally(() => this.router.invalidate());
  }
}

function found(experiment: ExperimentEntity | null): ExperimentEntity {
  if (!experiment) {
    throw new NotFoundException({ error: { code: 'not_found', message: 'Experiment not found' } });
  }
  return experiment;
}
