import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { FileDigest } from './manifest';

/** A file's size and sha256, streamed; null when it does not exist. */
export async function sha256File(file: string): Promise<{ bytes: number; sha256: string } | null> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      hash.update(chunk);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** The digest of the files beside a manifest, by their names in it. */
export const digestIn =
  (dir: string): FileDigest =>
  (name) =>
    sha256File(path.join(dir, name));
