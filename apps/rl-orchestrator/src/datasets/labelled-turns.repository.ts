import {
  countDatasetRecords,
  countLabelledTurns,
  exportDataset,
  type ExportRequest,
} from '@echoloop/datasets';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

type TurnQuery = Parameters<typeof countLabelledTurns>[1];
type RecordsQuery = Omit<Parameters<typeof countDatasetRecords>[0], 'db'>;

/** The labelled turns jobs train on, through libs/datasets (which owns their SQL, consent and privacy rules). */
@Injectable()
export class LabelledTurnsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** Writes an export's files (see exportDataset). */
  export(request: Omit<ExportRequest, 'db'>): ReturnType<typeof exportDataset> {
    return exportDataset({ ...request, db: this.db });
  }

  /** How many labelled turns match (see countLabelledTurns). */
  countTurns(query: TurnQuery): Promise<number> {
    return countLabelledTurns(this.db, query);
  }

  /** How many records of a kind an export would write now (see countDatasetRecords). */
  countRecords(query: RecordsQuery): Promise<number> {
    return countDatasetRecords({ ...query, db: this.db });
  }
}
