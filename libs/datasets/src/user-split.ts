import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { WrittenFile } from './record-writer';
import { jsonlWriter } from './writers';

export interface SplitFiles {
  train: WrittenFile;
  validation: WrittenFile;
  heldout: WrittenFile;
  /** Rows read from sources kept only in part (replay), and how many of them were kept. */
  sampled: { read: number; kept: number };
}

/** One input of a split: a JSON-lines file, all of it or a stable sample (`keep`, a share in [0, 1]). */
export interface SplitSource {
  file: string;
  keep?: number;
}

export interface SplitOptions {
  /** Shares of the users held out for the gate and kept apart to validate training; the rest train. */
  heldout: number;
  validation: number;
  /** The same seed puts a user on the same side every time: keep it fixed across refreshes. */
  seed: string;
  schema?: { parse(value: unknown): unknown };
}

/** A row of the export does not match its record schema: the snapshot is not trained on. */
export class InvalidSnapshotError extends Error {
  override readonly name = 'InvalidSnapshotError';
}

/** The record's user (`user`, or VeRL's `extra_info.user`): a user's rows stay on one side of the split. */
function userOf(record: Record<string, unknown>): string {
  if (typeof record['user'] === 'string') return record['user'];
  const extra = record['extra_info'];
  if (extra && typeof extra === 'object' && typeof (extra as Record<string, unknown>)['user'] === 'string') {
    return (extra as Record<string, string>)['user'] ?? '';
  }
  return JSON.stringify(record);
}

/** A stable number in [0, 1) for a key and a seed. */
function bucket(key: string, seed: string): number {
  return createHash('sha256').update(`${seed}:${key}`).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * Splits JSON-lines datasets into `train.jsonl`, `validation.jsonl` and `heldout.jsonl` in `outDir`, by user (no
 * user on two sides, so validation and the gate measure people the model never trained on), streamed at flat
 * memory; every row is checked against `schema` on the way. A source with `keep` contributes a stable sample of its
 * rows (the same rows for the same seed).
 */
export async function splitByUser(
  sources: SplitSource[],
  outDir: string,
  options: SplitOptions,
): Promise<SplitFiles> {
  const files = {
    train: jsonlWriter(path.join(outDir, 'train.jsonl')),
    validation: jsonlWriter(path.join(outDir, 'validation.jsonl')),
    heldout: jsonlWriter(path.join(outDir, 'heldout.jsonl')),
  };
  const sampled = { read: 0, kept: 0 };
  let row = 0;
  try {
    for (const source of sources) {
      const lines = createInterface({ input: createReadStream(source.file), crlfDelay: Infinity });
      try {
        for await (const line of lines) {
          if (!line.trim()) continue;
          row += 1;
          if (source.keep !== undefined) {
            sampled.read += 1;
            if (bucket(line, `${options.seed}:sample`) >= source.keep) continue;
            sampled.kept += 1;
          }
          const record = JSON.parse(line) as Record<string, unknown>;
          try {
            options.schema?.parse(record);
          } catch (error) {
            throw new InvalidSnapshotError(
              `row ${row} does not match its schema: ${(error as Error).message.slice(0, 300)}`,
            );
          }
          const at = bucket(userOf(record), options.seed);
          const side =
            at < options.heldout
              ? files.heldout
              : at < options.heldout + options.validation
                ? files.validation
                : files.train;
          await side.write(record);
        }
      } finally {
        lines.close();
      }
    }
  } catch (error) {
    await Promise.allSettled(Object.values(files).map((f) => f.close()));
    throw error;
  }
  return {
    train: await files.train.close(),
    validation: await files.validation.close(),
    heldout: await files.heldout.close(),
    sampled,
  };
}
