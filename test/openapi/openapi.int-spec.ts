import type { OpenApiDocument } from '@echoloop/platform';
import { freshLabellerGroup, type AppProcess, type TestDatabase } from '@echoloop/testing';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DataSource } from 'typeorm';
import { APPS, migratedDatabase, startAppReportingRoutes, type RouteKey } from './openapi-fixture';
import { validateOpenApi } from './openapi-validator';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const keyOf = (route: RouteKey) => `${route.method.toUpperCase()} ${route.path}`;

function documentedRoutes(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((method) => HTTP_METHODS.has(method))
      .map((method) => keyOf({ method, path })),
  );
}

let database: TestDatabase;
let db: DataSource;

beforeAll(async () => {
  ({ database, db } = await migratedDatabase('openapi'));
});

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

describe.each(APPS)('%s OpenAPI document', (app) => {
  let running: AppProcess;
  let expressRoutes: () => RouteKey[];
  let document: OpenApiDocument;

  beforeAll(async () => {
    ({ running, expressRoutes } = await startAppReportingRoutes(app, {
      DATABASE_URL: database.url,
      LABELLER_GROUP_ID: await freshLabellerGroup(),
    }));
    const res = await fetch(`${running.url}/docs/openapi.json`);
    expect(res.status).toBe(200);
    document = (await res.json()) as OpenApiDocument;
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('is valid OpenAPI 3.1, without authentication', async () => {
    const result = await validateOpenApi(document);
    expect(result.errors).toBeUndefined();
    expect(result).toMatchObject({ valid: true, version: '3.1' });
    expect(document.info.title).toBe(app);
  });

  it('is what the committed types of its clients say (libs/vocabulary/src/openapi; tools/web/write-api-types.ts)', async () => {
    const root = path.resolve(__dirname, '../..');
    // Asynchronous: a child run synchronously stalls this process's event loop past the app's keep-alive timeout, and
    // the next fetch then goes out on a socket the app has already closed ("fetch failed").
    const pending = promisify(execFile)(
      process.execPath,
      ['-r', '@swc-node/register', 'tools/web/write-api-types.ts', '--check-document', app],
      { cwd: root, encoding: 'utf8' },
    );
    pending.child.stdin?.end(JSON.stringify(document));
    const checked = await pending.then(
      ({ stderr }) => ({ status: 0, stderr }),
      (error: { code?: number; stderr?: string }) => ({ status: error.code, stderr: error.stderr }),
    );
    expect({ status: checked.status, stderr: checked.stderr }).toEqual({ status: 0, stderr: '' });
  }, 60_000);

  it('documents exactly the routes Express serves', () => {
    const served = [...new Set(expressRoutes().map(keyOf))].sort();
    expect(served.length).toBeGreaterThan(3);
    expect(documentedRoutes(document).sort()).toEqual(served);
  });

  it('documents every operation with its security and error shape', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const what = `${method.toUpperCase()} ${path}`;
        expect({ what, security: Array.isArray(operation.security) }).toEqual({ what, security: true });
        expect({ what, errors: operation.responses['4XX'] }).toEqual({
          what,
          errors: { $ref: '#/components/responses/Error' },
        });
      }
    }
    expect(document.paths['/health/live']?.['get']?.security).toEqual([]);
  });

  it('serves Swagger UI at /docs with every asset it loads', async () => {
    const res = await fetch(`${running.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map(([, url]) => url ?? '');
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css']));
    for (const asset of assets) {
      const loaded = await fetch(`${running.url}${asset}`);
      expect({ asset, status: loaded.status }).toEqual({ asset, status: 200 });
      expect((await loaded.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const initializer = await (await fetch(`${running.url}/docs/swagger-initializer.js`)).text();
    expect(initializer).toContain("url: '/docs/openapi.json'");
    expect((await fetch(`${running.url}/docs/..%2Fpackage.json`)).status).toBe(404);
  });
});

describe('chat-gateway OpenAPI details', () => {
  let running: AppProcess;
  let document: OpenApiDocument;

  beforeAll(async () => {
    ({ running } = await startAppReportingRoutes('chat-gateway', { DATABASE_URL: database.url }));
    document = (await (await fetch(`${running.url}/docs/openapi.json`)).json()) as OpenApiDocument;
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('takes request schemas from the zod pipes, and roles and public routes from the metadata', () => {
    const register = document.paths['/v1/auth/register']?.['post'] as Record<string, any>;
    expect(register['security']).toEqual([]);
    expect(register['requestBody'].content['application/json'].schema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['email', 'password', 'displayName']),
      additionalProperties: false,
    });
    const revokeKey = document.paths['/v1/api-keys/{id}']?.['delete'] as Record<string, any>;
    expect(revokeKey['x-required-roles']).toEqual(['admin']);
    expect(revokeKey['parameters']).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    ]);
    expect(revokeKey['security']).toEqual([{ bearerAuth: [] }]);
  });

  it('lists the socket events of /chat with their payload schemas', () => {
    expect(document['x-socket-events']['message:send']).toMatchObject({
      namespace: '/chat',
      payload: { type: 'object', required: expect.arrayContaining(['conversationId', 'content']) },
    });
    expect(Object.keys(document['x-socket-events']).sort()).toEqual([
      'message:regenerate',
      'message:resume',
      'message:send',
      'message:stop',
    ]);
  });
});
