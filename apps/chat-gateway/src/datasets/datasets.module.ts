import { ArtifactStore, artifactStoreOf, ExportsRepository, LabelledTurnsSource } from '@echoloop/datasets';
import { Module } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AuthModule } from '../auth/auth.module';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ExportRunner } from './export-runner';
import { ExportsController } from './exports.controller';
import { TurnsController } from './turns.controller';

/** What data teams read and export: labelled turns, under the privacy rules of libs/datasets. */
@Module({
  imports: [AuthModule],
  controllers: [TurnsController, ExportsController],
  providers: [
    {
      provide: ExportsRepository,
      inject: [getDataSourceToken()],
      useFactory: (db: DataSource) => new ExportsRepository(db),
    },
    {
      provide: LabelledTurnsSource,
      inject: [getDataSourceToken()],
      useFactory: (db: DataSource) => new LabelledTurnsSource(db),
    },
    ExportRunner,
    {
      provide: ArtifactStore,
      inject: [GATEWAY_ENV],
      useFactory: (env: GatewayEnv) => artifactStoreOf(env),
    },
  ],
})
export class DatasetsModule {}
