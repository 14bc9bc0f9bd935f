import {
  Controller,
  Get,
  Header,
  Inject,
  NotFoundException,
  Param,
  Res,
  VERSION_NEUTRAL,
} from '@nestjs/common';
import { ApplicationConfig, DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { Response } from 'express';
import { Public } from '../http/public.decorator';
import { ApiDoc } from './api-doc.decorators';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi-document';
import { discoverApi } from './route-discovery';
import { swaggerUiAsset, swaggerUiHtml } from './swagger-ui';

export const OPENAPI_TITLE = Symbol('OPENAPI_TITLE');

/** `/docs`: Swagger UI over `/docs/openapi.json`, the document of every route this app serves. */
@Public()
// Version-neutral: the page finds its assets at the same place whatever versioning an app enables.
@Controller({ path: 'docs', version: VERSION_NEUTRAL })
export class DocsController {
  private document?: OpenApiDocument;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly config: ApplicationConfig,
    @Inject(OPENAPI_TITLE) private readonly title: string,
  ) {}

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @ApiDoc({ summary: 'Swagger UI', responseType: 'text/html' })
  page(): string {
    return swaggerUiHtml(this.title, this.base());
  }

  @Get('openapi.json')
  @ApiDoc({ summary: 'This OpenAPI 3.1 document' })
  openApi(): OpenApiDocument {
    // Built on first use: by then every module has registered its routes.
    return (this.document ??= buildOpenApiDocument(
      discoverApi(this.discovery, this.scanner, this.config),
      this.title,
    ));
  }

  @Get(':asset')
  @ApiDoc({ summary: 'A Swagger UI asset', responseType: 'application/octet-stream' })
  asset(@Param('asset') name: string, @Res() res: Response): void {
    const asset = swaggerUiAsset(name, this.base());
    if (!asset) throw new NotFoundException({ error: { code: 'not_found', message: 'No such docs asset' } });
    res.status(200).setHeader('Content-Type', asset.contentType).send(asset.body);
  }

  private base(): string {
    const prefix = this.config.getGlobalPrefix().replace(/^\/+|\/+$/g, '');
    return prefix ? `/${prefix}/docs` : '/docs';
  }
}
