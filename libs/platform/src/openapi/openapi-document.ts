import type { DiscoveredApi, HttpRoute, InputSchema, RouteInput } from './route-discovery';
import { type JsonSchema, toJsonSchema } from './json-schema';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, Record<string, unknown>>;
  'x-socket-events': Record<string, SocketEventDoc>;
}

export interface SocketEventDoc {
  namespace: string;
  summary?: string;
  /** JSON Schema of the payload the client emits (acknowledged with a result or `{ error }`). */
  payload: JsonSchema;
}

interface Operation {
  operationId: string;
  tags: string[];
  summary?: string;
  description?: string;
  security: Record<string, string[]>[];
  'x-required-roles'?: string[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
}

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
}

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, details: {} },
    },
  },
};

const errorResponse = { $ref: '#/components/responses/Error' };

/** The OpenAPI 3.1 document of what Nest registered: every route, its inputs' JSON Schemas and its security. */
export function buildOpenApiDocument(api: DiscoveredApi, title: string): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = { Error: ERROR_SCHEMA };
  const convert = (schema: InputSchema | undefined, prefix: string): JsonSchema =>
    !schema ? {} : 'json' in schema ? schema.json : toJsonSchema(schema.zod, schemas, prefix);
  const paths: OpenApiDocument['paths'] = {};
  for (const route of api.routes) {
    const operationId = `${route.controller}_${route.handler}`;
    (paths[route.path] ??= {})[route.method] = operation(route, operationId, api.apiKeysOnly, (s) =>
      convert(s, operationId),
    );
  }
  const events = Object.fromEntries(
    api.events.map((event) => [
      event.event,
      {
        namespace: event.namespace,
        ...(event.summary && { summary: event.summary }),
        payload: event.payload
          ? convert({ zod: event.payload }, `event_${event.event.replace(/\W/g, '_')}`)
          : {},
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: { title, version: '1.0.0' },
    paths,
    components: {
      schemas,
      responses: {
        Error: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A user's access token",
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A service API key' },
      },
    },
    'x-socket-events': events,
  };
}

function operation(
  route: HttpRoute,
  operationId: string,
  apiKeysOnly: boolean,
  convert: (schema: InputSchema | undefined) => JsonSchema,
): Operation {
  const parameters = [...pathParameters(route, convert), ...queryParameters(route, convert)];
  const requestBody = bodyOf(route.inputs, convert);
  const status = route.doc?.status ?? route.status;
  const rolesNote = route.roles.length ? `Requires one of the roles: ${route.roles.join(', ')}.` : undefined;
  const description = [route.doc?.description, rolesNote].filter(Boolean).join('\n\n');
  return {
    operationId,
    tags: [route.controller.replace(/Controller$/, '')],
    ...(route.doc?.summary && { summary: route.doc.summary }),
    ...(description && { description }),
    security: securityOf(route, apiKeysOnly),
    ...(route.roles.length > 0 && { 'x-required-roles': route.roles }),
    ...(parameters.length > 0 && { parameters }),
    ...(requestBody && { requestBody }),
    responses: {
      [String(status)]: successResponse(route, status, convert),
      ...((parameters.length > 0 || requestBody !== undefined) && { '400': errorResponse }),
      ...(!route.isPublic && { '401': errorResponse, '403': errorResponse }),
      ...(parameters.some((p) => p.in === 'path') && { '404': errorResponse }),
      '4XX': errorResponse,
      '5XX': errorResponse,
    },
  };
}

function securityOf(route: HttpRoute, apiKeysOnly: boolean): Record<string, string[]>[] {
  if (route.isPublic) return [];
  if (apiKeysOnly) return [{ apiKey: [] }];
  // The gateway lets API keys act on the routes that name a role a key can hold (never admin); the rest is for users.
  return route.roles.some((role) => role !== 'admin')
    ? [{ bearerAuth: [] }, { apiKey: [] }]
    : [{ bearerAuth: [] }];
}

function successResponse(
  route: HttpRoute,
  status: number,
  convert: (schema: InputSchema | undefined) => JsonSchema,
): unknown {
  if (status === 204) return { description: 'No content' };
  const schema = route.doc?.response ? convert({ zod: route.doc.response }) : {};
  return {
    description: 'Success',
    content: { [route.doc?.responseType ?? 'application/json']: { schema } },
  };
}

/** Every `{name}` in the path is a parameter; its schema comes from its pipe, or is a plain string. */
function pathParameters(
  route: HttpRoute,
  convert: (schema: InputSchema | undefined) => JsonSchema,
): Parameter[] {
  const inputs = route.inputs.filter((input) => input.location === 'path');
  const whole = inputs.find((input) => !input.key && input.schema);
  const wholeSchema = whole ? convert(whole.schema) : undefined;
  return [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name = '']) => {
    const own = inputs.find((input) => input.key === name);
    const schema = own?.schema ? convert(own.schema) : (propertyOf(wholeSchema, name) ?? { type: 'string' });
    return { name, in: 'path' as const, required: true, schema };
  });
}

function queryParameters(
  route: HttpRoute,
  convert: (schema: InputSchema | undefined) => JsonSchema,
): Parameter[] {
  return route.inputs
    .filter((input) => input.location === 'query')
    .flatMap((input) => {
      const schema = convert(input.schema);
      if (input.key) return [{ name: input.key, in: 'query' as const, required: false, schema }];
      const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
      const required = (schema['required'] ?? []) as string[];
      return Object.entries(properties).map(([name, property]) => ({
        name,
        in: 'query' as const,
        required: required.includes(name),
        schema: property,
      }));
    });
}

function bodyOf(
  inputs: RouteInput[],
  convert: (schema: InputSchema | undefined) => JsonSchema,
): Operation['requestBody'] | undefined {
  const body = inputs.filter((input) => input.location === 'body');
  const files = inputs.filter((input) => input.location === 'file');
  if (!body.length && !files.length) return undefined;
  const whole = body.find((input) => !input.key);
  const fields = body.filter((input) => input.key);
  const schema: JsonSchema = whole
    ? convert(whole.schema)
    : fields.length
      ? {
          type: 'object',
          properties: Object.fromEntries(fields.map((input) => [input.key, convert(input.schema)])),
        }
      : {};
  if (!files.length) return { required: true, content: { 'application/json': { schema } } };
  const fileFields = files.map((input) => input.key ?? 'file');
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: fileFields,
          properties: {
            ...((schema['properties'] ?? {}) as JsonSchema),
            ...Object.fromEntries(
              fileFields.map((name) => [
                name,
                { type: 'string', contentMediaType: 'application/octet-stream' },
              ]),
            ),
          },
        },
      },
    },
  };
}

function propertyOf(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  return (schema?.['properties'] as Record<string, JsonSchema> | undefined)?.[name];
}
