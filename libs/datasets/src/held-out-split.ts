import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { jsonlWriter, type WrittenFile } from './writers';

export interface SplitFiles {
  train: WrittenFile;
  heldout: WrittenFile;
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
 * so the held-out score is on people the model never trained on), streamed at flat memory.
 */
export async function splitHeldOut(
  file: string,
  outDir: string,
  options: { fraction: number; seed: string },
): Promise<SplitFiles> {
  const train = jsonlWriter(path.join(outDir, 'train.jsonl'));
  const heldout = jsonlWriter(path.join(outDir, 'heldout.jsonl'));
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as Record<string, unknown>;
    const side = bucket(userOf(record), options.seed) < options.fraction ? heldout : train;
    await side.write(record);
  }
  return { train: await train.close(), heldout: await heldout.close() };
}
