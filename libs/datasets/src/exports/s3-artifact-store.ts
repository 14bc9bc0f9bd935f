import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ArtifactStore, artifactPath, stagedFiles } from './artifact-store';

export interface S3Settings {
  bucket: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2...); AWS when unset. */
  endpoint?: string | undefined;
  region: string;
  /** Key prefix of every export, e.g. `exports/`. */
  prefix: string;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/**
 * Exports in an S3-compatible bucket: staged on local disk, uploaded in parts (large files stream, never held in
 * memory), then the staging copy is removed; downloads stream from the bucket.
 */
export class S3ArtifactStore extends ArtifactStore {
  private readonly s3: S3Client;

  constructor(
    private readonly settings: S3Settings,
    private readonly stagingDir: string,
  ) {
    super();
    this.s3 = new S3Client({
      region: settings.region,
      ...(settings.endpoint && { endpoint: settings.endpoint, forcePathStyle: true }),
      ...(settings.credentials && { credentials: settings.credentials }),
    });
  }

  staging(): string {
    return this.stagingDir;
  }

  location(exportId: string): string {
    return `s3://${this.settings.bucket}/${this.settings.prefix}${exportId}/`;
  }

  private key(exportId: string, name: string): string {
    return `${this.settings.prefix}${exportId}/${path.basename(name)}`;
  }

  async publish(exportId: string): Promise<void> {
    for (const name of await stagedFiles(this.stagingDir, exportId)) {
      await new Upload({
        client: this.s3,
        params: {
          Bucket: this.settings.bucket,
          Key: this.key(exportId, name),
          Body: createReadStream(artifactPath(this.stagingDir, exportId, name)),
        },
      }).done();
    }
    await rm(path.join(this.stagingDir, exportId), { recursive: true, force: true });
  }

  async open(exportId: string, name: string): Promise<{ stream: Readable; bytes: number } | null> {
    try {
      const object = await this.s3.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.key(exportId, name) }),
      );
      return { stream: object.Body as Readable, bytes: object.ContentLength ?? 0 };
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  }

  async remove(exportId: string): Promise<void> {
    await rm(path.join(this.stagingDir, exportId), { recursive: true, force: true });
    const listed = await this.s3.send(
      new ListObjectsV2Command({
        Bucket: this.settings.bucket,
        Prefix: `${this.settings.prefix}${exportId}/`,
      }),
    );
    const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
    if (keys.length > 0) {
      await this.s3.send(
        new DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: keys } }),
      );
    }
  }
}
