import {
  RequestMethod,
  VERSION_NEUTRAL,
  VersioningType,
  type VersioningOptions,
} from '@nestjs/common';
import { PATH_METADATA, VERSION_METADATA } from '@nestjs/common/constants.js';
import type { ApplicationConfig } from '@nestjs/core';
import { McpEndpoint } from './mcp-endpoint.controller.js';

type VersionValue = string | symbol | Array<string | symbol>;

/** How the router compares paths (Nest's `HttpServer.getRouteMatchingOptions()`). */
export interface RouteMatching {
  caseSensitive?: boolean;
  ignoreTrailingSlash?: boolean;
}

/** `/a/b` from `a/b`, `/a/b/` or `a/b//`; `''` from `''` and `/`. */
function segment(path: string | undefined): string {
  const trimmed = (path ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `/${trimmed}`;
}

/** Whether a global prefix exclusion covers a `POST` to the path (as Nest's `isRouteExcluded`). */
function excludedFromPrefix(path: string, config: ApplicationConfig): boolean {
  const exclude = (config.getGlobalPrefixOptions() as { exclude?: unknown }).exclude;
  if (!Array.isArray(exclude)) return false;
  return exclude.some((route: { requestMethod?: number; pathRegex?: RegExp }) => {
    const method = route.requestMethod;
    const allMethods = method === undefined || method === RequestMethod.ALL || method === -1;
    if (!allMethods && method !== RequestMethod.POST) return false;
    if (!(route.pathRegex instanceof RegExp)) return false;
    route.pathRegex.lastIndex = 0;
    return route.pathRegex.test(path || '/');
  });
}

/** `/v1` for version `1` under URI versioning; `''` for a version-neutral route. */
function versionSegment(version: unknown, versioning: VersioningOptions): string {
  if (version === VERSION_NEUTRAL) return '';
  const prefix = versioning.type === VersioningType.URI ? versioning.prefix : undefined;
  return `/${prefix === false ? '' : (prefix ?? 'v')}${String(version)}`;
}

/**
 * The versions Nest serves the MCP route with, as `RoutesResolver` and `RouterExplorer` decide:
 * the `@Version()` of `handle`, else the controller's version, else the default version — for
 * each `McpEndpoint` controller at `path` (the mounted one, or the application's own with
 * `mount: false`). Without one (an application controller that does not extend `McpEndpoint`),
 * the default version. `undefined` stands for an unversioned route.
 */
function versionsOf(
  path: string,
  controllers: ReadonlyArray<unknown>,
  versioning: VersioningOptions,
): Array<VersionValue | undefined> {
  const versions = controllers
    .filter(
      (metatype): metatype is typeof McpEndpoint =>
        typeof metatype === 'function' &&
        metatype.prototype instanceof McpEndpoint &&
        [Reflect.getMetadata(PATH_METADATA, metatype) as string | string[] | undefined]
          .flat()
          .some((controllerPath) => segment(controllerPath) === segment(path)),
    )
    .map(
      (metatype): VersionValue | undefined =>
        Reflect.getMetadata(VERSION_METADATA, metatype.prototype.handle) ??
        Reflect.getMetadata(VERSION_METADATA, metatype) ??
        versioning.defaultVersion,
    );
  return versions.length > 0 ? versions : [versioning.defaultVersion];
}

/**
 * The paths Nest serves the MCP route at: `path`, behind its version under URI versioning, and
 * behind the global prefix unless an exclusion covers it — as `RoutePathFactory` builds them.
 * `controllers` are the application's controller classes, where the route's version is read.
 * (A module path given by `RouterModule` is not applied.)
 */
export function mcpRoutePaths(
  path: string,
  config: ApplicationConfig | undefined,
  controllers: ReadonlyArray<unknown> = [],
): string[] {
  const route = segment(path);
  const versioning = config?.getVersioning();
  const versionSegments =
    versioning?.type === VersioningType.URI
      ? versionsOf(path, controllers, versioning).flatMap((version) =>
          version === undefined
            ? ['']
            : [version].flat().map((each) => versionSegment(each, versioning)),
        )
      : [''];
  const prefix = config?.getGlobalPrefix();
  const prefixSegment =
    config && prefix && !excludedFromPrefix(route, config) ? segment(prefix) : '';
  return [...new Set(versionSegments.map((version) => prefixSegment + version + route || '/'))];
}

/** The MCP route as the router serves it: its paths, compared as the router compares them. */
export class McpRoute {
  private readonly keys: Set<string>;
  /** The paths as given: a URL that is one of them needs no comparing. */
  private readonly exact: Set<string>;
  private readonly caseSensitive: boolean;
  private readonly ignoreTrailingSlash: boolean;

  /** `matching` is the adapter's `getRouteMatchingOptions()`; default Express's defaults. */
  constructor(
    readonly paths: readonly string[],
    matching: RouteMatching = {},
  ) {
    this.caseSensitive = matching.caseSensitive ?? false;
    this.ignoreTrailingSlash = matching.ignoreTrailingSlash ?? true;
    this.keys = new Set(paths.map((route) => this.key(route)));
    this.exact = new Set(paths);
  }

  /** Whether the router serves a request URL (path and query) with the MCP route. */
  servesUrl(url: string | undefined): boolean {
    if (url !== undefined && this.exact.has(url)) return true;
    const path = (url ?? '').split('?')[0];
    return this.keys.has(this.key(path));
  }

  /** Whether a path registered with the router (a Fastify route's `url`) is the MCP route. */
  isRoute(path: string | undefined): boolean {
    return path !== undefined && this.keys.has(this.key(path));
  }

  private key(path: string): string {
    const trimmed = this.ignoreTrailingSlash && path.length > 1 ? path.replace(/\/+$/, '') : path;
    const rooted = trimmed === '' ? '/' : trimmed;
    return this.caseSensitive ? rooted : rooted.toLowerCase();
  }
}
