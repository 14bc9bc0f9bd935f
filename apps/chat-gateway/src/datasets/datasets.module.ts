import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ArtifactStore, LocalArtifactStore } from './artifact-store';
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
    ExportRunner,
    {
      provide: ArtifactStore,
      inject: [GATEWAY_ENV],
      useFactory: (env: GatewayEnv) => new LocalArtifactStore(env.EXPORT_DIR),
    },
  ],
})
export class DatasetsModule {}
