import type { DataSource } from 'typeorm';
import { countDatasetRecords, exportDataset, type ExportRequest } from './export-dataset';
import { countLabelledTurns, pageOfTurns, planLabelledTurns } from './kinds/labelled-turns';

/**
 * This library's reads of one database, as a class an app injects (each app provides it over its own data source),
 * so that services reach labelled turns through one object they can mock.
 */
export class LabelledTurnsSource {
  constructor(private readonly db: DataSource) {}

  /** One page, oldest first, after the cursor (see pageOfTurns). */
  page(
    query: Parameters<typeof pageOfTurns>[1],
    page: Parameters<typeof pageOfTurns>[2],
  ): ReturnType<typeof pageOfTurns> {
    return pageOfTurns(this.db, query, page);
  }

  /** Plans the query of these filters without running it (see planLabelledTurns). */
  plan(query: Parameters<typeof planLabelledTurns>[1]): Promise<void> {
    return planLabelledTurns(this.db, query);
  }

  /** How many labelled turns match (see countLabelledTurns). */
  countTurns(query: Parameters<typeof countLabelledTurns>[1]): Promise<number> {
    return countLabelledTurns(this.db, query);
  }

  /** How many records of a kind an export would write now (see countDatasetRecords). */
  countRecords(query: Omit<Parameters<typeof countDatasetRecords>[0], 'db'>): Promise<number> {
    return countDatasetRecords({ ...query, db: this.db });
  }

  /** Writes an export's files (see exportDataset). */
  export(request: Omit<ExportRequest, 'db'>): ReturnType<typeof exportDataset> {
    return exportDataset({ ...request, db: this.db });
  }
}
