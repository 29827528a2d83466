/**
 * Leak and pollution checks shared by the reliability specs, with the raw MCP helpers of
 * test/fixtures. Apps come from test/fixtures/apps.ts, waiting from test/fixtures/timing.ts.
 */
import 'reflect-metadata';
import { expect } from '@jest/globals';

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

/** Body limit for the specs that POST 4 MiB strings. */
export const BIG_LIMIT = 8 * 1024 * 1024;

/** fast-check parameters: bounded runs, and a reproducible seed when FC_SEED is set. */
export function fcParams(numRuns: number): { numRuns: number; seed?: number } {
  const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
  return seed === undefined ? { numRuns } : { numRuns, seed };
}
