import {
  type DatasetKind,
  InvalidSnapshotError,
  preferenceRecord,
  pseudonymKey,
  splitByUser,
  verlRecord,
  LabelledTurnsSource,
} from '@echoloop/datasets';
import { CLOCK, type Clock } from '@echoloop/platform';
import { Inject, Injectable } from '@nestjs/common';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { OrchestratorEnv } from '../env';
import { JobFailure } from '../jobs/job-failure';
import { ORCHESTRATOR_ENV } from '../tokens';

/** The record schemas a snapshot's rows are checked against before any training (the kinds jobs train on). */
const SCHEMAS: Partial<Record<DatasetKind, { parse(value: unknown): unknown }>> = {
  preferences: preferenceRecord,
  verl: verlRecord,
};

type Side = { rows: number; sha256: string; file: string };

/** The checkpoint a refresh builds on, as its snapshot records it. */
export interface SnapshotParent {
  checkpointId: string;
  /** The job that trained it; null for a base model or a checkpoint registered by hand. */
  jobId: string | null;
  /** Its adapter (null: the base model itself). */
  adapterPath: string | null;
  /** The newest data it saw: this snapshot takes what came after, and replays a sample of what came before. */
  cutoff: string | null;
}

/** What a job trains on: the export's manifest plus the train / validation / held-out split, by user. */
export interface Snapshot {
  id: string;
  kind: DatasetKind;
  dir: string;
  /** Turns replied before this instant are in it, the rest wait for the next refresh. */
  cutoff: string;
  parent: SnapshotParent;
  /** Pairs or prompts in each split, with their files' sha256. */
  train: Side;
  validation: Side;
  heldout: Side;
  /** Rows older than the parent's cutoff that were read, and those replayed into the split. */
  replay: { fraction: number; read: number; kept: number };
  export: Record<string, unknown>;
}

/** A snapshot too small to train on, as its job records it: the counts of each split, its files removed. */
export type SkippedSnapshot = Omit<Snapshot, 'dir' | 'train' | 'validation' | 'heldout'> &
  Record<'train' | 'validation' | 'heldout', { rows: number }>;

export type SnapshotOutcome =
  | { ok: true; snapshot: Snapshot }
  | { ok: false; reason: string; details: SkippedSnapshot };

/**
 * Builds a job's dataset snapshot with the data library's export (consent, redaction, pseudonyms, manifest): the
 * data since the parent's snapshot plus a stable replay sample of the older, split by user into train, validation
 * and held-out. Too little data is a clear "skipped", never a job on a handful of rows.
 */
@Injectable()
export class SnapshotBuilder {
  constructor(
    private readonly turns: LabelledTurnsSource,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async build(jobId: string, kind: DatasetKind, parent: SnapshotParent): Promise<SnapshotOutcome> {
    const root = path.resolve(this.env.RL_WORK_DIR, 'snapshots');
    const cutoff = this.clock().toISOString();
    const exportOf = (id: string, filters: { from?: string; to: string }) =>
      this.turns.export({
        id,
        kind,
        format: 'jsonl',
        filters: { ...filters, population: this.env.RL_POPULATION },
        outDir: root,
        privacy: { pseudonymKey: pseudonymKey(this.env) },
        consentDefault: this.env.TRAINING_CONSENT_DEFAULT,
        now: this.clock,
      });
    const fresh = await exportOf(jobId, { ...(parent.cutoff && { from: parent.cutoff }), to: cutoff });
    const { dir, manifest } = fresh;
    const replay = parent.cutoff ? await exportOf(`${jobId}-replay`, { to: parent.cutoff }) : null;
    const fraction = this.env.RL_REPLAY_FRACTION;
    const sources = [fresh, ...(replay ? [replay] : [])].map(({ dir: from, manifest: m }) => {
      const [file] = m.files;
      if (!file) throw new Error(`the ${kind} export wrote no file`);
      return { file: path.join(from, file.name), ...(from !== dir && { keep: fraction }) };
    });
    const split = await splitByUser(sources, dir, {
      heldout: this.env.RL_HELDOUT_FRACTION,
      validation: this.env.RL_VALIDATION_FRACTION,
      seed: this.env.RL_SPLIT_SEED,
      ...(SCHEMAS[kind] && { schema: SCHEMAS[kind] }),
    })
      .catch(async (error: unknown) => {
        await rm(dir, { recursive: true, force: true });
        throw error instanceof InvalidSnapshotError
          ? new JobFailure('invalid_snapshot', error.message)
          : error;
      })
      .finally(() => replay && rm(replay.dir, { recursive: true, force: true }));
    const replayed = { fraction: replay ? fraction : 0, read: split.sampled.read, kept: split.sampled.kept };
    const unit = kind === 'preferences' ? 'pairs' : 'rows';
    const short =
      split.train.rows < this.env.RL_MIN_PAIRS
        ? `${split.train.rows} training ${unit}, at least ${this.env.RL_MIN_PAIRS} needed`
        : split.validation.rows < this.env.RL_MIN_VALIDATION_PAIRS
          ? `${split.validation.rows} validation ${unit}, at least ${this.env.RL_MIN_VALIDATION_PAIRS} needed`
          : null;
    if (short) {
      await rm(dir, { recursive: true, force: true });
      // The same shape as a built snapshot's, without its files: the job page and reports read both alike.
      const rows = (side: { rows: number }) => ({ rows: side.rows });
      const details: SkippedSnapshot = {
        id: manifest.id,
        kind,
        cutoff,
        parent,
        train: rows(split.train),
        validation: rows(split.validation),
        heldout: rows(split.heldout),
        replay: replayed,
        export: { ...manifest },
      };
      return { ok: false, reason: `too_little_data: ${short}`, details };
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
        cutoff,
        parent,
        train: side(split.train),
        validation: side(split.validation),
        heldout: side(split.heldout),
        replay: replayed,
        export: { ...manifest },
      },
    };
  }
}
