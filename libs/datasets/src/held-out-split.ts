import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { jsonlWriter, type WrittenFile } from './writers';

export interface SplitFiles {
  train: WrittenFile;
  heldout: WrittenFile;
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

/** A stable number in [0, 1) for a user and a seed. */
function bucket(user: string, seed: string): number {
  return createHash('sha256').update(`${seed}:${user}`).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * Splits a JSON-lines dataset into `train.jsonl` and `heldout.jsonl` in `outDir`, by user (no user on both sides,
 * so the held-out score is on people the model never trained on), streamed at flat memory; every row is checked
 * against `schema` on the way.
 */
export async function splitHeldOut(
  file: string,
  outDir: string,
  options: { fraction: number; seed: string; schema?: { parse(value: unknown): unknown } },
): Promise<SplitFiles> {
  const train = jsonlWriter(path.join(outDir, 'train.jsonl'));
  const heldout = jsonlWriter(path.join(outDir, 'heldout.jsonl'));
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  try {
    let row = 0;
    for await (const line of lines) {
      if (!line.trim()) continue;
      row += 1;
      const record = JSON.parse(line) as Record<string, unknown>;
      try {
        options.schema?.parse(record);
      } catch (error) {
        throw new InvalidSnapshotError(
          `row ${row} does not match its schema: ${(error as Error).message.slice(0, 300)}`,
        );
      }
      const side = bucket(userOf(record), options.seed) < options.fraction ? heldout : train;
      await side.write(record);
    }
  } catch (error) {
    lines.close();
    await Promise.allSettled([train.close(), heldout.close()]);
    throw error;
  }
  return { train: await train.close(), heldout: await heldout.close() };
}
