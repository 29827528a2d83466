/** Apps and leak checks shared by the reliability specs, with the raw MCP helpers of test/fixtures. */
import 'reflect-metadata';
import { expect } from '@jest/globals';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';

export { ADAPTERS, type AdapterName } from '../fixtures/apps.js';
export * from '../fixtures/mcp-http.js';

// ---------------------------------------------------------------------------------------------
// Leaks.

const LEAKS: Array<[string, RegExp]> = [
  ['a stack frame', /\bat [\w.<>$[\] ]+ \((?:file:\/\/|\/|node:)[^()]*:\d+:\d+\)/],
  ['an anonymous stack frame', /\bat (?:file:\/\/|\/|node:)\S+:\d+:\d+/],
  ['a stack property', /"stack"\s*:/],
  ['a repository path', /\/work\//],
  ['node_modules', /node_modules/],
  ['a TypeScript location', /\.ts:\d/],
];

/** The leaks found in a text: stack traces and file paths. `allowed` is what the input itself carried. */
export function leaksIn(text: string, input = ''): string[] {
  return LEAKS.filter(([, pattern]) => pattern.test(text) && !pattern.test(input)).map(
    ([what]) => what,
  );
}

/** JSON of anything: bigints as strings, cycles cut. */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  return (
    JSON.stringify(value, (_key, child: unknown) => {
      if (typeof child === 'bigint') return `${child}n`;
      if (typeof child === 'symbol') return child.toString();
      if (typeof child === 'object' && child !== null) {
        if (seen.has(child)) return '[circular]';
        seen.add(child);
      }
      return child;
    }) ?? 'undefined'
  );
}

// ---------------------------------------------------------------------------------------------
// Prototype pollution.

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype, String.prototype];
const baseline = PROTOTYPES.map((proto) => Reflect.ownKeys(proto).map(String).sort());

/** Fails if anything was added to a built-in prototype, or `{}` inherits a planted property. */
export function expectNoPollution(): void {
  const probe: any = {};
  expect({
    polluted: probe.polluted,
    isAdmin: probe.isAdmin,
    tenantId: probe.tenantId,
    added: PROTOTYPES.map((proto, i) =>
      Reflect.ownKeys(proto)
        .map(String)
        .filter((key) => !baseline[i].includes(key)),
    ),
    objectProto: Object.getPrototypeOf(probe) === Object.prototype,
  }).toEqual({
    polluted: undefined,
    isAdmin: undefined,
    tenantId: undefined,
    added: PROTOTYPES.map(() => []),
    objectProto: true,
  });
}

// ---------------------------------------------------------------------------------------------
// Apps.

/** Body limit for the specs that POST 4 MiB strings. */
export const BIG_LIMIT = 8 * 1024 * 1024;

export interface ListenOptions {
  /** Raise the framework's JSON body limit (Express `useBodyParser`, Fastify `bodyLimit`). */
  bodyLimit?: number;
}

/**
 * Boots listening Nest apps with `forceCloseConnections` (see test/mcp/support.ts: SDK clients
 * leave keep-alive sockets that would otherwise hold `app.close()` for the keep-alive timeout).
 */
export class ReliabilityApps {
  private readonly open: INestApplication[] = [];

  async listen(
    metadata: ModuleMetadata,
    adapter: 'express' | 'fastify',
    options: ListenOptions = {},
  ): Promise<{ app: INestApplication; url: string; port: number }> {
    const moduleRef = await Test.createTestingModule(metadata).compile();
    const appOptions = { logger: false as const, forceCloseConnections: true };
    let app: INestApplication;
    if (adapter === 'fastify') {
      app = moduleRef.createNestApplication(
        new FastifyAdapter(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
        appOptions,
      );
    } else {
      app = moduleRef.createNestApplication<NestExpressApplication>(appOptions);
      if (options.bodyLimit) {
        (app as NestExpressApplication).useBodyParser('json', { limit: options.bodyLimit });
      }
    }
    this.open.push(app);
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url, port: Number(new URL(url).port) };
  }

  /** Forgets an app closed by the test itself. */
  forget(app: INestApplication): void {
    const index = this.open.indexOf(app);
    if (index >= 0) this.open.splice(index, 1);
  }

  async closeAll(): Promise<void> {
    const apps = this.open.splice(0);
    await Promise.all(apps.map((app) => app.close().catch(() => undefined)));
  }
}

/** Polls `check` until it holds or `ms` passes; returns whether it held. */
export async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** fast-check parameters: bounded runs, and a reproducible seed when FC_SEED is set. */
export function fcParams(numRuns: number): { numRuns: number; seed?: number } {
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  return seed === undefined ? { numRuns } : { numRuns, seed };
}
