import { DatasetExportEntity, type ExportOrigin } from '@echoloop/persistence';
import { type DataSource, IsNull, Not } from 'typeorm';

/**
 * The SQL of dataset exports, wherever they are made (the gateway's runner, the CLI): queue, claim, progress,
 * finish, and the erasure of files holding a deleted user.
 */
export class ExportsRepository {
  constructor(private readonly db: DataSource) {}

  private get exports() {
    return this.db.getRepository(DatasetExportEntity);
  }

  create(row: Pick<DatasetExportEntity, 'kind' | 'format' | 'filters' | 'requestedBy'>) {
    return this.exports.save(this.exports.create(row));
  }

  /** An export made by a process of its own (the CLI): running from the start, never claimed by a runner. */
  begin(
    row: Pick<DatasetExportEntity, 'kind' | 'format' | 'filters'> & { origin: ExportOrigin },
    now: Date,
  ): Promise<DatasetExportEntity> {
    return this.exports.save(
      this.exports.create({ ...row, status: 'running', startedAt: now, heartbeatAt: now, requestedBy: null }),
    );
  }

  find(id: string) {
    return this.exports.findOneBy({ id });
  }

  list(limit: number) {
    return this.exports.find({ order: { createdAt: 'DESC' }, take: limit });
  }

  /** The oldest queued export, now running; another process never gets the same one. */
  async claim(now: Date): Promise<DatasetExportEntity | null> {
    const [rows] = await this.db.query<[{ id: string }[], number]>(
      `UPDATE dataset_exports SET status = 'running', started_at = $1, heartbeat_at = $1
        WHERE id = (SELECT id FROM dataset_exports WHERE status = 'queued' ORDER BY created_at
                    FOR UPDATE SKIP LOCKED LIMIT 1)
        RETURNING id`,
      [now],
    );
    return rows[0] ? this.find(rows[0].id) : null;
  }

  /**
   * Exports whose process stopped (no heartbeat since `before`): queued to run again from the start. A running
   * export on a live replica keeps beating, so it is never taken from under it.
   */
  async requeueStale(before: Date): Promise<void> {
    await this.db.query(
      `UPDATE dataset_exports SET status = 'queued', read = 0 WHERE status = 'running' AND heartbeat_at < $1`,
      [before],
    );
  }

  /** A running export given back (its process is stopping): the next runner starts it again. */
  async requeue(id: string): Promise<void> {
    await this.exports.update({ id, status: 'running' }, { status: 'queued', read: 0 });
  }

  async heartbeat(id: string, now: Date): Promise<void> {
    await this.exports.update({ id, status: 'running' }, { heartbeatAt: now });
  }

  async progress(id: string, read: number, total: number, now: Date): Promise<void> {
    await this.exports.update({ id, status: 'running' }, { read, total, heartbeatAt: now });
  }

  /**
   * Records the users the export holds and marks it succeeded, in one transaction; when one of them was erased
   * while it ran, the export is erased instead (its files hold that user). Returns the status it ended with.
   */
  finish(id: string, manifest: Record<string, unknown> & { rows: number }, userIds: string[], now: Date) {
    return this.db.transaction(async (tx) => {
      const [{ missing }] = await tx.query<[{ missing: number }]>(
        `WITH present AS (
           INSERT INTO dataset_export_users (export_id, user_id)
           SELECT $1, u.id FROM users u WHERE u.id = ANY($2::uuid[]) RETURNING user_id)
         SELECT cardinality($2::uuid[]) - (SELECT count(*) FROM present)::int AS missing`,
        [id, userIds],
      );
      const status = missing > 0 ? 'erased' : 'succeeded';
      await tx.getRepository(DatasetExportEntity).update(
        { id },
        {
          status,
          manifest: manifest as never, // plain JSON; TypeORM's deep-partial type cannot see that
          rows: manifest.rows,
          finishedAt: now,
          read: Number(manifest['turnsRead'] ?? 0),
        },
      );
      return status;
    });
  }

  async fail(id: string, code: string, now: Date): Promise<void> {
    await this.exports.update({ id }, { status: 'failed', error: code, finishedAt: now });
  }

  /** Erased exports whose files may still exist (their manifest is dropped once the files are gone). */
  erasedWithFiles(): Promise<Pick<DatasetExportEntity, 'id'>[]> {
    return this.exports.find({ where: { status: 'erased', manifest: Not(IsNull()) }, select: { id: true } });
  }

  async filesRemoved(id: string): Promise<void> {
    await this.exports.update({ id }, { manifest: null });
  }
}
