import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import type { DatasetFilters } from './filters';
import type { Manifest } from './manifest';
import { countLabelledTurns, labelledTurns } from './kinds/labelled-turns';
import { type DatasetKind, KINDS } from './kinds/catalog';
import type { PairingOptions } from './kinds/preferences';
import { DATASET_SCHEMA_VERSION, type Privacy } from './kinds/records';
import { type DatasetFormat, writerFor } from './writers';

export interface ExportRequest {
  db: DataSource;
  kind: DatasetKind;
  format: DatasetFormat;
  filters: DatasetFilters;
  /** A new folder under it holds the files and manifest.json. */
  outDir: string;
  privacy: Privacy;
  consentDefault: boolean;
  pairing?: PairingOptions;
  /** `sft`: the lowest composite reward of a reply worth imitating (0.5 by default). */
  sftMinReward?: number;
  /** Called as rows are read: done so far, and the total turns to read (for a progress bar and an ETA). */
  onProgress?: (read: number, total: number) => void | Promise<void>;
  now?: () => Date;
  /** Where the files go; a new folder named after the export id under outDir when unset. */
  id?: string;
}

/**
 * Writes one dataset snapshot: the records of the kind, from the labelled turns of consenting users matching the
 * filters, streamed from PostgreSQL (memory stays flat), pseudonymous and PII-redacted, plus a manifest with the
 * row counts, label versions and the sha256 of every file.
 */
export async function exportDataset(
  request: ExportRequest,
): Promise<{ dir: string; manifest: Manifest; userIds: Set<string> }> {
  const { kind, format, filters, privacy, consentDefault } = request;
  const id = request.id ?? randomUUID();
  const dir = path.join(request.outDir, id);
  await mkdir(dir, { recursive: true });
  const { db } = request;
  const spec = KINDS[kind];
  const query = {
    filters,
    consentDefault,
    pairsOnly: spec.pairsOnly,
    byMessage: spec.byMessage,
  };
  const total = await countLabelledTurns(db, query);
  const versions = new Set<string>();
  const userIds = new Set<string>();
  let read = 0;
  const turns = (async function* () {
    for await (const turn of labelledTurns(db, query)) {
      read += 1;
      if (turn.labellerVersion) versions.add(turn.labellerVersion);
      userIds.add(turn.userId);
      if (read % 1_000 === 0) await request.onProgress?.(read, total);
      yield turn;
    }
  })();
  const name = `${kind}.${format}`;
  const writer = writerFor(format, path.join(dir, name), spec.columns);
  const records = spec.records(turns, {
    privacy,
    ...(request.pairing && { pairing: request.pairing }),
    ...(request.sftMinReward !== undefined && { sftMinReward: request.sftMinReward }),
  });
  for await (const record of records) await writer.write(record as unknown as Record<string, unknown>);
  const written = await writer.close();
  await request.onProgress?.(read, total);
  const manifest: Manifest = {
    id,
    kind,
    format,
    schemaVersion: DATASET_SCHEMA_VERSION,
    filters,
    labelVersions: [...versions].sort(),
    privacy: { pseudonyms: 'hmac-sha256', redaction: 'regex-v1', consentDefault },
    rows: written.rows,
    turnsRead: read,
    files: [{ name, rows: written.rows, bytes: written.bytes, sha256: written.sha256 }],
    createdAt: (request.now?.() ?? new Date()).toISOString(),
  };
  await writeFile(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  // Which users the files hold (never written into them): erasing one of them erases this export.
  return { dir, manifest, userIds };
}

/**
 * How many records of the kind an export with these filters would write now (streamed, nothing written): what a
 * refresh threshold counts, by the very rules of the export.
 */
export async function countDatasetRecords(
  request: Pick<ExportRequest, 'db' | 'kind' | 'filters' | 'privacy' | 'consentDefault' | 'pairing'>,
): Promise<number> {
  const spec = KINDS[request.kind];
  const turns = labelledTurns(request.db, {
    filters: request.filters,
    consentDefault: request.consentDefault,
    pairsOnly: spec.pairsOnly,
    byMessage: spec.byMessage,
  });
  const options = { privacy: request.privacy, ...(request.pairing && { pairing: request.pairing }) };
  const records = spec.records(turns, options)[Symbol.asyncIterator]();
  let count = 0;
  while (!(await records.next()).done) count += 1;
  return count;
}
