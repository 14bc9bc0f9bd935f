import type { DatasetEnv } from '../dataset-env';
import { type ArtifactStore, LocalArtifactStore } from './artifact-store';
import { S3ArtifactStore } from './s3-artifact-store';

/** The store the dataset variables name: the bucket when EXPORT_S3_BUCKET is set, EXPORT_DIR otherwise. */
export function artifactStoreOf(env: DatasetEnv): ArtifactStore {
  if (!env.EXPORT_S3_BUCKET) return new LocalArtifactStore(env.EXPORT_DIR);
  return new S3ArtifactStore(
    {
      bucket: env.EXPORT_S3_BUCKET,
      endpoint: env.EXPORT_S3_ENDPOINT,
      region: env.EXPORT_S3_REGION,
      prefix: env.EXPORT_S3_PREFIX,
      credentials:
        env.EXPORT_S3_ACCESS_KEY_ID && env.EXPORT_S3_SECRET_ACCESS_KEY
          ? { accessKeyId: env.EXPORT_S3_ACCESS_KEY_ID, secretAccessKey: env.EXPORT_S3_SECRET_ACCESS_KEY }
          : undefined,
    },
    env.EXPORT_DIR,
  );
}
