import { ArtifactStore, ExportsRepository, LabelledTurnsSource } from '@echoloop/datasets';
import { type DatasetExportEntity, isDataException } from '@echoloop/persistence';
import { ApiDoc, sendStream, validationFailed, ZodValidationPipe } from '@echoloop/platform';
import {
  Body,
  ConflictException,
  Controller,
  Get,
  GoneException,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Res,
} from '@nestjs/common';
import type { Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { CurrentPrincipal, Roles } from '../auth/auth.decorators';
import type { Principal } from '../auth/principal';
import { ExportRunner } from './export-runner';
import { createExportSchema, type CreateExportInput, exportList, exportView } from './exports.schemas';

const CONTENT_TYPES: Record<string, string> = {
  jsonl: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};
const notFound = () => new NotFoundException({ error: { code: 'not_found', message: 'Export not found' } });

function view(row: DatasetExportEntity) {
  return {
    id: row.id,
    kind: row.kind,
    format: row.format,
    filters: row.filters,
    status: row.status,
    origin: row.origin,
    progress: { read: row.read, total: row.total },
    rows: row.rows,
    manifest: row.status === 'erased' ? null : row.manifest,
    error: row.error,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

/** Dataset exports for data teams (analysts and admins): asked for, run in the background, downloaded. */
@Controller('v1/exports')
@Roles('analyst')
export class ExportsController {
  constructor(
    private readonly repository: ExportsRepository,
    private readonly runner: ExportRunner,
    private readonly store: ArtifactStore,
    private readonly turns: LabelledTurnsSource,
    private readonly logger: PinoLogger,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiDoc({
    summary: 'Starts an export (turns or preference pairs, JSONL or CSV) in the background',
    description:
      'Pseudonymous users, PII redacted, consenting users only. Follow it with GET /v1/exports/:id.',
    response: exportView,
  })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body(new ZodValidationPipe(createExportSchema)) input: CreateExportInput,
    @Res({ passthrough: true }) res: Response,
  ) {
    // The export's query, planned with these filters now: a value the database would refuse fails here, not later.
    await this.turns.plan({ filters: input.filters, consentDefault: false }).catch((error: unknown) => {
      if (!isDataException(error)) throw error;
      throw validationFailed([
        { path: 'filters', message: 'the database cannot compare turns with these filters' },
      ]);
    });
    const row = await this.repository.create({
      kind: input.kind,
      format: input.format,
      filters: input.filters,
      requestedBy: principal.kind === 'user' ? principal.userId : null,
    });
    this.runner.wake();
    res.setHeader('Location', `/v1/exports/${row.id}`);
    return view(row);
  }

  @Get()
  @ApiDoc({ summary: 'The newest exports', response: exportList })
  async list() {
    return { items: (await this.repository.list(50)).map(view) };
  }

  @Get(':id')
  @ApiDoc({ summary: 'An export: status, progress, row count and manifest', response: exportView })
  async get(@Param('id', ParseUUIDPipe) id: string) {
    const row = await this.repository.find(id);
    if (!row) throw notFound();
    return view(row);
  }

  @Get(':id/download')
  @ApiDoc({
    summary: 'The export file',
    description:
      '409 `export_not_ready` until it succeeded; 410 `export_erased` once a user in it was erased, ' +
      '`export_files_missing` when its stored files are gone.',
  })
  async download(@Param('id', ParseUUIDPipe) id: string, @Res() res: Response): Promise<void> {
    const row = await this.repository.find(id);
    if (!row) throw notFound();
    if (row.status === 'erased') {
      throw new GoneException({
        error: { code: 'export_erased', message: 'A user in this export erased their data; export again' },
      });
    }
    const files = (row.manifest?.['files'] ?? []) as { name: string }[];
    if (row.status !== 'succeeded' || !files[0]) {
      throw new ConflictException({
        error: { code: 'export_not_ready', message: `This export is ${row.status}` },
      });
    }
    const opened = await this.store.open(row.id, files[0].name);
    if (!opened) {
      throw new GoneException({
        error: { code: 'export_files_missing', message: "This export's files are gone; export again" },
      });
    }
    res.setHeader('Content-Type', CONTENT_TYPES[row.format] ?? 'application/octet-stream');
    res.setHeader('Content-Length', String(opened.bytes));
    res.setHeader('Content-Disposition', `attachment; filename="${row.kind}-${row.id}.${row.format}"`);
    await sendStream(opened.stream, res, `export ${row.id}`, this.logger);
  }
}
