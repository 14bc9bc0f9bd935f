import { Module } from '@nestjs/common';
import { TurnsController } from './turns.controller';

/** What data teams read and export: labelled turns, under the privacy rules of libs/datasets. */
@Module({ controllers: [TurnsController] })
export class DatasetsModule {}
