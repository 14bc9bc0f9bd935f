import {
  type AdapterPlacementState,
  CACHE_CHANGES_CHANNEL,
  type CheckpointEndpoint,
} from '@echoloop/persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

/** A checkpoint served as a LoRA adapter: its name on the endpoints and the folder they load it from. */
export interface AdapterCheckpoint {
  id: string;
  modelName: string;
  adapterPath: string;
  endpoints: CheckpointEndpoint[];
  /** Whether it must be served now (see `wanted` below). */
  wanted: boolean;
}

export interface Placement {
  checkpointId: string;
  baseUrl: string;
  state: AdapterPlacementState;
  detail: string | null;
  observedAt: Date;
}

/** What one reconcile pass may do to the table, within its transaction. */
export interface PlacementWriter {
  adapterCheckpoints(): Promise<AdapterCheckpoint[]>;
  /** Records what was seen; announces the checkpoint (CACHE_CHANGES_CHANNEL) when its state changed. */
  record(placement: Omit<Placement, 'observedAt'>): Promise<void>;
  /** Drops the rows of placements that are no longer wanted (`checkpointId@baseUrl` kept). */
  keepOnly(kept: readonly string[]): Promise<void>;
}

// Any 64-bit number of our own: the lock one reconcile pass holds across every orchestrator replica.
const RECONCILE_LOCK = 3_117_000_031;

/**
 * An adapter is wanted while its checkpoint is not retired and is the default, an arm of a running experiment, or a
 * candidate not yet compared (under its gate, or waiting in a draft). A candidate whose experiments all ended
 * (stopped, promoted for another arm) is not: its adapter comes down.
 */
const WANTED = `
  c.status <> 'retired' AND (
    c.is_default
    OR EXISTS (SELECT 1 FROM experiments e, jsonb_array_elements(e.arms) arm
               WHERE e.status = 'running' AND arm->>'checkpointId' = c.id)
    OR (c.status = 'candidate' AND NOT EXISTS (
          SELECT 1 FROM experiments e, jsonb_array_elements(e.arms) arm
          WHERE e.status IN ('stopped', 'promoted') AND arm->>'checkpointId' = c.id)))`;

/** The desired state (checkpoints, experiments) and the observed one (`adapter_placements`). */
@Injectable()
export class AdapterPlacementsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Runs `pass` as the one reconciler across replicas (a transaction-scoped advisory lock); null when another
   * replica holds it. What the pass records is committed, and announced, when it ends.
   */
  async exclusively<T>(pass: (writer: PlacementWriter) => Promise<T>): Promise<T | null> {
    return this.db.transaction(async (tx) => {
      const [{ locked }] = (await tx.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        RECONCILE_LOCK,
      ])) as [{ locked: boolean }];
      if (!locked) return null;
      return pass(writer(tx));
    });
  }

  /** Where one checkpoint's adapter is served, as last seen. */
  async of(checkpointId: string): Promise<Placement[]> {
    const rows = (await this.db.query(
      `SELECT checkpoint_id, base_url, state, detail, observed_at FROM adapter_placements
        WHERE checkpoint_id = $1 ORDER BY base_url`,
      [checkpointId],
    )) as PlacementRow[];
    return rows.map(fromRow);
  }
}

interface PlacementRow {
  checkpoint_id: string;
  base_url: string;
  state: AdapterPlacementState;
  detail: string | null;
  observed_at: Date;
}

const fromRow = (row: PlacementRow): Placement => ({
  checkpointId: row.checkpoint_id,
  baseUrl: row.base_url,
  state: row.state,
  detail: row.detail,
  observedAt: row.observed_at,
});

function writer(tx: EntityManager): PlacementWriter {
  return {
    async adapterCheckpoints() {
      const rows = (await tx.query(
        `SELECT c.id, c.model_name, c.adapter_path, c.endpoints, (${WANTED}) AS wanted
           FROM checkpoints c WHERE c.adapter_path IS NOT NULL ORDER BY c.created_at`,
      )) as {
        id: string;
        model_name: string;
        adapter_path: string;
        endpoints: CheckpointEndpoint[];
        wanted: boolean;
      }[];
      return rows.map((r) => ({
        id: r.id,
        modelName: r.model_name,
        adapterPath: r.adapter_path,
        endpoints: r.endpoints,
        wanted: r.wanted,
      }));
    },
    async record({ checkpointId, baseUrl, state, detail }) {
      await tx.query(
        `WITH before AS (
           SELECT state FROM adapter_placements WHERE checkpoint_id = $1 AND base_url = $2
         ), saved AS (
           INSERT INTO adapter_placements (checkpoint_id, base_url, state, detail, observed_at)
           VALUES ($1, $2, $3, $4, now())
           ON CONFLICT (checkpoint_id, base_url)
           DO UPDATE SET state = EXCLUDED.state, detail = EXCLUDED.detail, observed_at = now()
           RETURNING 1
         )
         SELECT pg_notify($5, 'checkpoint:' || $1) FROM saved
          WHERE (SELECT state FROM before) IS DISTINCT FROM $3`,
        [checkpointId, baseUrl, state, detail, CACHE_CHANGES_CHANNEL],
      );
    },
    async keepOnly(kept) {
      await tx.query(
        `WITH gone AS (
           DELETE FROM adapter_placements WHERE NOT (checkpoint_id || '@' || base_url = ANY($1::text[]))
           RETURNING checkpoint_id
         )
         SELECT pg_notify($2, 'checkpoint:' || checkpoint_id) FROM (SELECT DISTINCT checkpoint_id FROM gone) g`,
        [kept, CACHE_CHANGES_CHANNEL],
      );
    },
  };
}
