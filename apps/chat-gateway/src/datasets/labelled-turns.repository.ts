import { exportDataset, type ExportRequest, pageOfTurns } from '@echoloop/datasets';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

type TurnsQuery = Parameters<typeof pageOfTurns>[1];
type TurnsPage = Parameters<typeof pageOfTurns>[2];

/** The labelled turns data teams read, through libs/datasets (which owns their SQL and privacy rules). */
@Injectable()
export class LabelledTurnsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** One page, oldest first, after the cursor. */
  page(query: TurnsQuery, page: TurnsPage): ReturnType<typeof pageOfTurns> {
    return pageOfTurns(this.db, query, page);
  }

  /** Writes an export's files (see exportDataset). */
  export(request: Omit<ExportRequest, 'db'>): ReturnType<typeof exportDataset> {
    return exportDataset({ ...request, db: this.db });
  }
}
