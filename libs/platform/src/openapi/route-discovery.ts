import {
  type PipeTransform,
  ParseBoolPipe,
  ParseFloatPipe,
  ParseIntPipe,
  ParseUUIDPipe,
  RequestMethod,
  type Type,
  VERSION_NEUTRAL,
  type VersioningOptions,
  VersioningType,
} from '@nestjs/common';
import {
  HTTP_CODE_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
  VERSION_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { ApplicationConfig, DiscoveryService, MetadataScanner } from '@nestjs/core';
import {
  GATEWAY_METADATA,
  GATEWAY_OPTIONS,
  MESSAGE_MAPPING_METADATA,
  MESSAGE_METADATA,
} from '@nestjs/websockets/constants';
import type { z } from 'zod';
import { ApiKeyGuard } from '../api-keys/api-key.guard';
import { IS_PUBLIC } from '../http/public.decorator';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { API_DOC, API_EVENT, type ApiDocOptions, type ApiEventOptions } from './api-doc.decorators';
import type { JsonSchema } from './json-schema';
import { REQUIRED_ROLES } from '../api-keys/roles.decorator';

export type InputSchema = { zod: z.ZodType } | { json: JsonSchema };

export interface RouteInput {
  location: 'body' | 'query' | 'path' | 'file';
  /** The field a decorator names (`@Param('id')`); none when it takes the whole body, query or params. */
  key?: string;
  schema?: InputSchema;
}

export interface HttpRoute {
  method: string;
  /** OpenAPI form: `/v1/characters/{id}`. */
  path: string;
  controller: string;
  handler: string;
  inputs: RouteInput[];
  isPublic: boolean;
  roles: string[];
  status: number;
  doc?: ApiDocOptions;
}

export interface SocketEventRoute {
  namespace: string;
  event: string;
  payload?: z.ZodType;
  summary?: string;
}

export interface DiscoveredApi {
  routes: HttpRoute[];
  events: SocketEventRoute[];
  /** Every guarded route takes a service API key (the platform's ApiKeyGuard); otherwise users' bearer tokens. */
  apiKeysOnly: boolean;
}

interface RouteArg {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

const LOCATIONS: Partial<Record<number, RouteInput['location']>> = {
  [RouteParamtypes.BODY]: 'body',
  [RouteParamtypes.QUERY]: 'query',
  [RouteParamtypes.PARAM]: 'path',
  [RouteParamtypes.FILE]: 'file',
  [RouteParamtypes.FILES]: 'file',
};

/** Every route and socket event Nest registered, with what their pipes and metadata say about them. */
export function discoverApi(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  config: ApplicationConfig,
): DiscoveredApi {
  const routes = discovery.getControllers().flatMap(({ metatype, instance }) => {
    if (!metatype || !instance) return [];
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
    return scanner.getAllMethodNames(prototype).flatMap((name) => {
      const handler = prototype[name];
      return typeof handler === 'function' ? routesOf(metatype as Type, name, handler as object, config) : [];
    });
  });
  const providers = discovery.getProviders();
  const events = providers.flatMap(({ metatype, instance }) =>
    metatype && instance && Reflect.getMetadata(GATEWAY_METADATA, metatype)
      ? eventsOf(instance, scanner)
      : [],
  );
  const apiKeysOnly = providers.some(({ metatype }) => metatype === ApiKeyGuard);
  return { routes, events, apiKeysOnly };
}

function routesOf(controller: Type, name: string, handler: object, config: ApplicationConfig): HttpRoute[] {
  const methodPaths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
  const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  if (methodPaths === undefined || requestMethod === undefined) return [];
  const method = RequestMethod[requestMethod].toLowerCase();
  const meta = <T>(key: string): T | undefined =>
    (Reflect.getMetadata(key, handler) as T | undefined) ??
    (Reflect.getMetadata(key, controller) as T | undefined);
  const controllerPaths =
    (Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined) ?? '/';
  const prefixes = versionPrefixes(meta(VERSION_METADATA), config.getVersioning());
  const inputs = inputsOf(controller, name);
  const base = {
    method,
    controller: controller.name,
    handler: name,
    inputs,
    isPublic: meta<boolean>(IS_PUBLIC) === true,
    roles: meta<string[]>(REQUIRED_ROLES) ?? [],
    status:
      (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ??
      (method === 'post' ? 201 : 200),
    doc: Reflect.getMetadata(API_DOC, handler) as ApiDocOptions | undefined,
  };
  return [config.getGlobalPrefix()].flatMap((global) =>
    prefixes.flatMap((version) =>
      [controllerPaths].flat().flatMap((controllerPath) =>
        [methodPaths].flat().map((methodPath) => ({
          ...base,
          path: openApiPath([global, version, controllerPath, methodPath]),
        })),
      ),
    ),
  );
}

function inputsOf(controller: Type, name: string): RouteInput[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, RouteArg>;
  return Object.entries(args).flatMap(([key, arg]) => {
    const location = LOCATIONS[Number(key.split(':')[0])];
    if (!location) return [];
    const schema = schemaOfPipes(arg.pipes ?? []);
    return [
      {
        location,
        ...(typeof arg.data === 'string' && { key: arg.data }),
        ...(schema && { schema }),
      },
    ];
  });
}

/** The schema a parameter's pipes enforce: a zod pipe's schema, or the type a built-in parse pipe accepts. */
function schemaOfPipes(pipes: unknown[]): InputSchema | undefined {
  for (const pipe of pipes) {
    if (pipe instanceof ZodValidationPipe) {
      // The pipe keeps its schema private (it is the platform's own class, so the shape is known).
      return { zod: (pipe as unknown as { schema: z.ZodType }).schema };
    }
    const type = typeof pipe === 'function' ? pipe : (pipe as PipeTransform | undefined)?.constructor;
    if (type === ParseUUIDPipe) return { json: { type: 'string', format: 'uuid' } };
    if (type === ParseIntPipe) return { json: { type: 'integer' } };
    if (type === ParseFloatPipe) return { json: { type: 'number' } };
    if (type === ParseBoolPipe) return { json: { type: 'boolean' } };
  }
  return undefined;
}

function versionPrefixes(version: unknown, versioning: VersioningOptions | undefined): string[] {
  if (versioning?.type !== VersioningType.URI) return [''];
  const chosen = version ?? versioning.defaultVersion;
  if (chosen === undefined) return [''];
  const prefix = versioning.prefix === false ? '' : (versioning.prefix ?? 'v');
  return [chosen].flat().map((v) => (v === VERSION_NEUTRAL ? '' : `${prefix}${String(v)}`));
}

/** Nest's path joining, in OpenAPI's template form (`:id` and `*rest` become `{id}` and `{rest}`). */
function openApiPath(parts: string[]): string {
  const joined = parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/');
  return `/${joined}`.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

function eventsOf(instance: object, scanner: MetadataScanner): SocketEventRoute[] {
  const options = (Reflect.getMetadata(GATEWAY_OPTIONS, instance.constructor) ?? {}) as {
    namespace?: unknown;
  };
  const namespace = typeof options.namespace === 'string' ? options.namespace : '/';
  const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
  return scanner.getAllMethodNames(prototype).flatMap((name) => {
    const handler = prototype[name];
    if (typeof handler !== 'function' || !Reflect.getMetadata(MESSAGE_MAPPING_METADATA, handler)) return [];
    const event = Reflect.getMetadata(MESSAGE_METADATA, handler) as string;
    const doc = Reflect.getMetadata(API_EVENT, handler) as ApiEventOptions<object> | undefined;
    const payload = typeof doc?.payload === 'function' ? doc.payload(instance) : doc?.payload;
    const fromPipe = inputsOf(instance.constructor as Type, name).find((input) => input.location === 'body');
    const pipeSchema = fromPipe?.schema && 'zod' in fromPipe.schema ? fromPipe.schema.zod : undefined;
    return [
      {
        namespace,
        event,
        ...((payload ?? pipeSchema) && { payload: (payload ?? pipeSchema) as z.ZodType }),
        ...(doc?.summary && { summary: doc.summary }),
      },
    ];
  });
}
