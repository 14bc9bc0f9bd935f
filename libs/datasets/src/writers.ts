import { stringify } from 'csv-stringify';
import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { type ParquetColumn, parquetWriter } from './parquet';
import type { RecordWriter } from './record-writer';

export const FORMATS = ['jsonl', 'csv', 'parquet'] as const;
export type DatasetFormat = (typeof FORMATS)[number];

/** Counts and hashes every byte on its way to the file. */
function hashedFile(path: string) {
  const file: WriteStream = createWriteStream(path);
  const hash = createHash('sha256');
  let bytes = 0;
  return {
    async write(chunk: string | Buffer) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      hash.update(buffer);
      bytes += buffer.length;
      if (!file.write(buffer)) await once(file, 'drain');
    },
    async close() {
      file.end();
      await once(file, 'finish');
      return { bytes, sha256: hash.digest('hex') };
    },
  };
}

/** One JSON object per line. */
export function jsonlWriter(path: string): RecordWriter {
  const out = hashedFile(path);
  let rows = 0;
  return {
    async write(record) {
      rows += 1;
      await out.write(`${JSON.stringify(record)}\n`);
    },
    async close() {
      return { path, rows, ...(await out.close()) };
    },
  };
}

/**
 * RFC 4180 CSV with a header from the first record's keys; nested values (messages, rewards) are JSON in their
 * cell, so every field survives a round trip.
 */
export function csvWriter(path: string): RecordWriter {
  const out = hashedFile(path);
  const csv = stringify({ header: true, cast: { boolean: (value) => String(value) } });
  let rows = 0;
  let columns: string[] | undefined;
  const drained = (async () => {
    for await (const chunk of csv) await out.write(chunk as Buffer);
  })();
  return {
    async write(record) {
      columns ??= Object.keys(record);
      rows += 1;
      const row = Object.fromEntries(
        columns.map((key) => {
          const value = record[key];
          return [key, value !== null && typeof value === 'object' ? JSON.stringify(value) : value];
        }),
      );
      if (!csv.write(row)) await once(csv, 'drain');
    },
    async close() {
      csv.end();
      await drained;
      return { path, rows, ...(await out.close()) };
    },
  };
}

export function writerFor(
  format: DatasetFormat,
  path: string,
  columns: readonly ParquetColumn[],
): RecordWriter {
  if (format === 'parquet') return parquetWriter(path, columns);
  return format === 'jsonl' ? jsonlWriter(path) : csvWriter(path);
}
