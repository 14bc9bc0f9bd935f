import { LabelledTurnsSource } from '@echoloop/datasets';
import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuthModule } from '../auth/auth.module';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ArtifactStore, LocalArtifactStore } from './artifact-store';
import { S3ArtifactStore } from './s3-artifact-store';
import { ExportRunner } from './export-runner';
import { ExportsController } from './exports.controller';
import { ExportsRepository } from './exports.repository';
import { TurnsController } from './turns.controller';

/** What data teams read and export: labelled turns, under the privacy rules of libs/datasets. */
@Module({
  imports: [AuthModule],
  controllers: [TurnsController, ExportsController],
  providers: [
    ExportsRepository,
    {
      provide: LabelledTurnsSource,
      inject: [getDataSourceToken()],
      useFactory: (db: DataSource) => new LabelledTurnsSource(db),
    },
    ExportRunner,
    {
      provide: ArtifactStore,
      inject: [GATEWAY_ENV],
      useFactory: (env: GatewayEnv) =>
        env.EXPORT_S3_BUCKET
          ? new S3ArtifactStore(
              {
                bucket: env.EXPORT_S3_BUCKET,
                endpoint: env.EXPORT_S3_ENDPOINT,
                region: env.EXPORT_S3_REGION,
                prefix: env.EXPORT_S3_PREFIX,
                credentials:
                  env.EXPORT_S3_ACCESS_KEY_ID && env.EXPORT_S3_SECRET_ACCESS_KEY
                    ? {
                        accessKeyId: env.EXPORT_S3_ACCESS_KEY_ID,
                        secretAccessKey: env.EXPORT_S3_SECRET_ACCESS_KEY,
                      }
                    : undefined,
              },
              env.EXPORT_DIR,
            )
          : new LocalArtifactStore(env.EXPORT_DIR),
    },
  ],
})
export class DatasetsModule {}
