import { open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where export files live. An export writes its files into `staging()/<id>/`, then `publish(id)` makes them the
 * stored artifact. Two implementations behind this one interface: a local directory (the default) and an
 * S3-compatible bucket (S3ArtifactStore, when EXPORT_S3_BUCKET is set).
 */
export abstract class ArtifactStore {
  /** The local folder exports write into before publishing. */
  abstract staging(): string;
  abstract publish(exportId: string): Promise<void>;
  abstract open(exportId: string, name: string): Promise<{ stream: Readable; bytes: number } | null>;
  /** Removes everything stored for the export (and anything left in staging). */
  abstract remove(exportId: string): Promise<void>;
  /** Where the export's files are kept, for people: a folder, or an s3:// URL. */
  abstract location(exportId: string): string;
}

/** Ids are uuids and names come from the manifest, never from a request: no path can leave the folder. */
export const artifactPath = (root: string, exportId: string, name: string) =>
  path.join(root, exportId, path.basename(name));

export async function stagedFiles(root: string, exportId: string): Promise<string[]> {
  return (await readdir(path.join(root, exportId), { withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

export class LocalArtifactStore extends ArtifactStore {
  constructor(private readonly dir: string) {
    super();
  }

  staging(): string {
    return this.dir;
  }

  /** The files are already where they are kept. */
  async publish(): Promise<void> {}

  /**
   * Opened before its size is read: an erasure that removes the file afterwards cannot break a download that
   * started (the open file stays readable), and one that came first is a plain "not there".
   */
  async open(exportId: string, name: string) {
    const handle = await open(artifactPath(this.dir, exportId, name)).catch(() => null);
    if (!handle) return null;
    try {
      return { stream: handle.createReadStream(), bytes: (await handle.stat()).size };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async remove(exportId: string): Promise<void> {
    await rm(path.join(this.dir, exportId), { recursive: true, force: true });
  }

  location(exportId: string): string {
    return path.resolve(this.dir, exportId);
  }
}
