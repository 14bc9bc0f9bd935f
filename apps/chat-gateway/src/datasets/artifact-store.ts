import { createReadStream, type ReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where export files live. One interface; a local directory is the implementation here (an S3-compatible bucket is
 * the production step: same four operations).
 */
export abstract class ArtifactStore {
  /** The folder an export writes its files into. */
  abstract root(): string;
  abstract open(exportId: string, name: string): Promise<{ stream: ReadStream; bytes: number } | null>;
  abstract remove(exportId: string): Promise<void>;
}

export class LocalArtifactStore extends ArtifactStore {
  constructor(private readonly dir: string) {
    super();
  }

  root(): string {
    return this.dir;
  }

  async open(exportId: string, name: string) {
    // Ids are uuids and names come from the manifest, never from the request: no path can escape the root.
    const file = path.join(this.dir, exportId, path.basename(name));
    const info = await stat(file).catch(() => null);
    return info ? { stream: createReadStream(file), bytes: info.size } : null;
  }

  async remove(exportId: string): Promise<void> {
    await rm(path.join(this.dir, exportId), { recursive: true, force: true });
  }
}
