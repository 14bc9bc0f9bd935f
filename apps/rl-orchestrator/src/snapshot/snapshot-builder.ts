import {
  type DatasetKind,
  InvalidSnapshotError,
  preferenceRecord,
  pseudonymKey,
  splitHeldOut,
  verlRecord,
  LabelledTurnsSource,
} from '@echoloop/datasets';
import { CLOCK, type Clock } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { OrchestratorEnv } from '../env';
import { JobFailure } from '../pipeline/job-failure';
import { ORCHESTRATOR_ENV } from '../tokens';

/** The record schemas a snapshot's rows are checked against before any training (the kinds jobs train on). */
const SCHEMAS: Partial<Record<DatasetKind, { parse(value: unknown): unknown }>> = {
  preferences: preferenceRecord,
  verl: verlRecord,
};

/** What a job trains on: the export's manifest plus the train / held-out split, by user. */
export interface Snapshot {
  id: string;
  kind: DatasetKind;
  dir: string;
  /** Pairs or prompts in each split, with their files' sha256. */
  train: { rows: number; sha256: string; file: string };
  heldout: { rows: number; sha256: string; file: string };
  export: Record<string, unknown>;
}

export type SnapshotOutcome =
  | { ok: true; snapshot: Snapshot }
  | { ok: false; reason: string; details: Record<string, unknown> };

/**
 * Builds a job's dataset snapshot with the data library's export (consent, redaction, pseudonyms, manifest), then
 * holds out a share of the users for the gate. Too little data is a clear "skipped", never a job on a handful of rows.
 */
@Injectable()
export class SnapshotBuilder {
  constructor(
    private readonly turns: LabelledTurnsSource,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async build(jobId: string, kind: DatasetKind): Promise<SnapshotOutcome> {
    const root = path.resolve(this.env.RL_WORK_DIR, 'snapshots');
    const { dir, manifest } = await this.turns.export({
      id: jobId,
      kind,
      format: 'jsonl',
      filters: {},
      outDir: root,
      privacy: { pseudonymKey: pseudonymKey(this.env) },
      consentDefault: this.env.TRAINING_CONSENT_DEFAULT,
      now: this.clock,
    });
    const [file] = manifest.files;
    if (!file) throw new Error(`the ${kind} export wrote no file`);
    const split = await splitHeldOut(path.join(dir, file.name), dir, {
      fraction: this.env.RL_HELDOUT_FRACTION,
      seed: jobId,
      ...(SCHEMAS[kind] && { schema: SCHEMAS[kind] }),
    }).catch(async (error: unknown) => {
      await rm(dir, { recursive: true, force: true });
      throw error instanceof InvalidSnapshotError ? new JobFailure('invalid_snapshot', error.message) : error;
    });
    const details = { rows: manifest.rows, train: split.train.rows, heldout: split.heldout.rows };
    if (split.train.rows < this.env.RL_MIN_PAIRS) {
      await rm(dir, { recursive: true, force: true });
      return {
        ok: false,
        reason: `too_little_data: ${split.train.rows} training ${kind === 'preferences' ? 'pairs' : 'rows'}, at least ${this.env.RL_MIN_PAIRS} needed`,
        details,
      };
    }
    const side = (written: { path: string; rows: number; sha256: string }) => ({
      rows: written.rows,
      sha256: written.sha256,
      file: path.basename(written.path),
    });
    return {
      ok: true,
      snapshot: {
        id: manifest.id,
        kind,
        dir,
        train: side(split.train),
        heldout: side(split.heldout),
        export: { ...manifest },
      },
    };
  }
}
