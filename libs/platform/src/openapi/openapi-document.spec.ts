import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  type INestApplication,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  UploadedFile,
  Version,
  VERSION_NEUTRAL,
  VersioningType,
} from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { MessageBody, SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import { z } from 'zod';
import { Roles } from '../api-keys/roles.decorator';
import { Public } from '../http/public.decorator';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { ApiDoc, ApiEvent } from './api-doc.decorators';
import { DocsController, OPENAPI_TITLE } from './docs.controller';
import type { OpenApiDocument } from './openapi-document';

const createThing = z.object({ name: z.string().min(1), tags: z.array(z.string()).optional() }).strict();
const listQuery = z.object({
  limit: z.coerce.number().int().max(100).default(20),
  after: z.uuid().optional(),
});

@Controller('things')
class ThingsController {
  @Post()
  @ApiDoc({ summary: 'Creates a thing', response: z.object({ id: z.uuid() }) })
  create(@Body(new ZodValidationPipe(createThing)) body: unknown) {
    return body;
  }

  @Get()
  list(@Query(new ZodValidationPipe(listQuery)) query: unknown) {
    return query;
  }

  @Delete(':id')
  @Roles('admin')
  @HttpCode(204)
  remove(@Param('id', ParseUUIDPipe) id: string) {
    return id;
  }

  @Post(':id/file')
  @Roles('experimenter')
  upload(@Param('id') id: string, @UploadedFile() file: unknown) {
    return { id, file };
  }

  @Get('open')
  @Public()
  open() {
    return {};
  }
}

@WebSocketGateway({ namespace: '/things' })
class ThingsGateway {
  readonly pingSchema = z.object({ n: z.number().int() }).strict();

  @SubscribeMessage('thing:ping')
  @ApiEvent({ payload: (gateway: ThingsGateway) => gateway.pingSchema })
  ping(@MessageBody() body: unknown) {
    return body;
  }

  @SubscribeMessage('thing:echo')
  echo(@MessageBody(new ZodValidationPipe(z.object({ text: z.string() }))) body: unknown) {
    return body;
  }
}

describe('OpenAPI document', () => {
  let app: INestApplication;
  let document: OpenApiDocument;

  beforeAll(async () => {
    const module = await Test.createTestingModule({
      imports: [DiscoveryModule],
      controllers: [ThingsController, DocsController],
      providers: [ThingsGateway, { provide: OPENAPI_TITLE, useValue: 'things' }],
    }).compile();
    app = module.createNestApplication({ logger: false });
    app.setGlobalPrefix('api');
    await app.init();
    document = app.get(DocsController).openApi();
  });

  afterAll(() => app.close());

  it('lists every route under the global prefix, docs included', () => {
    const routes = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(routes.sort()).toEqual([
      'delete /api/things/{id}',
      'get /api/docs',
      'get /api/docs/openapi.json',
      'get /api/docs/{asset}',
      'get /api/things',
      'get /api/things/open',
      'post /api/things',
      'post /api/things/{id}/file',
    ]);
  });

  it('takes bodies and queries from the zod pipes, as what a client sends', () => {
    const create = document.paths['/api/things']?.['post'];
    expect(create?.requestBody?.content['application/json']?.schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['name'],
      additionalProperties: false,
    });
    expect(create?.summary).toBe('Creates a thing');
    expect(create?.responses['201']).toMatchObject({
      content: { 'application/json': { schema: { properties: { id: { format: 'uuid' } } } } },
    });
    expect(document.paths['/api/things']?.['get']?.parameters).toEqual([
      { name: 'limit', in: 'query', required: false, schema: expect.objectContaining({ default: 20 }) },
      { name: 'after', in: 'query', required: false, schema: expect.objectContaining({ format: 'uuid' }) },
    ]);
  });

  it('marks uuid path params, roles, public routes, file uploads and error responses', () => {
    const remove = document.paths['/api/things/{id}']?.['delete'];
    expect(remove?.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ]);
    expect(remove?.['x-required-roles']).toEqual(['admin']);
    expect(remove?.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(remove?.responses ?? {})).toEqual(['204', '400', '401', '403', '404', '4XX', '5XX']);
    const upload = document.paths['/api/things/{id}/file']?.['post'];
    expect(upload?.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
    expect(upload?.requestBody?.content['multipart/form-data']?.schema).toMatchObject({ required: ['file'] });
    expect(upload?.parameters?.[0]?.schema).toEqual({ type: 'string' });
    expect(document.paths['/api/things/open']?.['get']?.security).toEqual([]);
    expect(document.components['schemas']?.['Error']).toMatchObject({ required: ['error'] });
  });

  it('lists socket events with their payload schemas, from the decorator or the pipe', () => {
    expect(document['x-socket-events']).toEqual({
      'thing:ping': {
        namespace: '/things',
        payload: {
          type: 'object',
          properties: { n: expect.objectContaining({ type: 'integer' }) },
          required: ['n'],
          additionalProperties: false,
        },
      },
      'thing:echo': {
        namespace: '/things',
        payload: expect.objectContaining({ properties: { text: { type: 'string' } } }),
      },
    });
  });

  it('serves Swagger UI from the prefixed docs path', () => {
    expect(app.get(DocsController).page()).toContain('src="/api/docs/swagger-ui-bundle.js"');
  });
});

@Controller({ path: 'items', version: '2' })
class VersionedController {
  @Get()
  list() {
    return [];
  }

  @Get('legacy')
  @Version(VERSION_NEUTRAL)
  legacy() {
    return [];
  }
}

describe('OpenAPI document with URI versioning', () => {
  it('puts each route under its version, or none for version-neutral ones', async () => {
    const module = await Test.createTestingModule({
      imports: [DiscoveryModule],
      controllers: [VersionedController, DocsController],
      providers: [{ provide: OPENAPI_TITLE, useValue: 'items' }],
    }).compile();
    const app = module.createNestApplication({ logger: false });
    app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });
    await app.init();
    try {
      expect(Object.keys(app.get(DocsController).openApi().paths).sort()).toEqual([
        '/docs',
        '/docs/openapi.json',
        '/docs/{asset}',
        '/items/legacy',
        '/v2/items',
      ]);
    } finally {
      await app.close();
    }
  });
});
