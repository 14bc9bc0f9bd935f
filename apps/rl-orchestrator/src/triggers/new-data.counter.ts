import { LabelledTurnsSource, pseudonymKey } from '@echoloop/datasets';
import { Inject, Injectable } from '@nestjs/common';
import type { OrchestratorEnv } from '../env';
import { ORCHESTRATOR_ENV } from '../tokens';

/** Labelled turns and preference pairs replied since a moment, counted by the export's own rules (consent too). */
@Injectable()
export class NewDataCounter {
  constructor(
    private readonly labelled: LabelledTurnsSource,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
  ) {}

  turns(since: Date | null): Promise<number> {
    return this.labelled.countTurns({
      filters: { population: this.env.RL_POPULATION, ...(since && { from: since.toISOString() }) },
      consentDefault: this.env.TRAINING_CONSENT_DEFAULT,
      pairsOnly: false,
      byMessage: false,
    });
  }

  pairs(since: Date | null): Promise<number> {
    return this.labelled.countRecords({
      kind: 'preferences',
      filters: { population: this.env.RL_POPULATION, ...(since && { from: since.toISOString() }) },
      consentDefault: this.env.TRAINING_CONSENT_DEFAULT,
      privacy: { pseudonymKey: pseudonymKey(this.env) },
    });
  }
}
