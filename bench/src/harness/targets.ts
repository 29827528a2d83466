/** The benchmark targets: each a compiled server entry point under bench/src/servers. */
import { join } from 'node:path';
import { BENCH_DIR } from '../shared/paths.js';
import { ALL_SCENARIOS, SCENARIOS } from './cells.js';
import type { Era, Scenario } from './mcp.js';
import type { ServerSpec } from './server-process.js';

export interface BenchTarget extends ServerSpec {
  /**
   * The server signs callers in (`mcp.auth`): the harness runs an issuer (`issuer.ts`), starts
   * the server with `AUTH_ISSUER` pointing at it, and every request carries the issuer's token.
   */
  readonly auth?: boolean;
  /**
   * The server registers an OpenTelemetry SDK with in-memory exporters (`TELEMETRY=memory`, see
   * `shared/otel.ts`): the harness asks it for what it exported after every cell, and fails the
   * run when a measured answer went without its spans and histogram records.
   */
  readonly telemetry?: boolean;
  /**
   * The same server without sign-in (or without the SDK), whose CPU per answer the report
   * compares with this one's: the first of these ids that runs.
   */
  readonly plain?: readonly string[];
  /**
   * The scenarios measured on this target: the tools' (`tools/call echo`, `tools/list`) when
   * absent; the toolwright servers, which declare resources and prompts too, name every one.
   */
  readonly scenarios?: readonly Scenario[];
  /**
   * The floor target of the same adapter (`servers/floor.ts`: Nest and the adapter doing the
   * same JSON-RPC work without an MCP SDK), whose CPU per answer the report divides this one's by.
   */
  readonly floor?: string;
  /** Measured only when BENCH_TARGETS names it, never in the default run. */
  readonly optIn?: boolean;
  /**
   * The eras the server speaks, both when absent. A 2025-only server is never the one the
   * 2026-07-28 client's requests are captured against, must still refuse them when they were
   * captured against another target (or the run fails), and its 2026 cells are reported as not
   * applicable.
   */
  readonly eras?: readonly Era[];
}

/**
 * With BENCH_REFERENCE set to another build's `dist` folder (say, of the previous commit), the
 * same toolwright servers run on that build too, as `reference-express` and `reference-fastify`
 * (and, when named in BENCH_TARGETS, `reference-express-auth`, `reference-fastify-auth`,
 * `reference-express-otel` and `reference-fastify-otel`): a change and its baseline measured in
 * the same run.
 */
const REFERENCE = process.env.BENCH_REFERENCE;

const ADAPTERS = ['express', 'fastify'] as const;
const NAME = { express: 'Express', fastify: 'Fastify' } as const;

/**
 * A toolwright server with `mcp.auth` on, measured on `tools/call echo` only and compared with
 * the same server without it (and, for a reference build, with toolwright's when the reference's
 * own plain server does not run).
 */
function signedIn(
  prefix: 'toolwright' | 'reference',
  label: string,
  adapter: (typeof ADAPTERS)[number],
  dist?: string,
): BenchTarget {
  return {
    id: `${prefix}-${adapter}-auth`,
    label: `${label} + mcp.auth`,
    entry: 'servers/toolwright.js',
    env: { ADAPTER: adapter, ...(dist !== undefined && { TOOLWRIGHT_DIST: dist }) },
    auth: true,
    plain: [...new Set([`${prefix}-${adapter}`, `toolwright-${adapter}`])],
    scenarios: ['call'],
    optIn: true,
  };
}

/**
 * A toolwright server with an OpenTelemetry SDK registered (`TELEMETRY=memory`): an MCP SERVER
 * span and an `mcp.server.operation.duration` record per request, an `execute_tool` span and a
 * `toolwright.tool.call.duration` record per call, measured on every cell and compared with the
 * same server without the SDK (and, for a reference build, with toolwright's when the reference's
 * own plain server does not run).
 */
function withTelemetry(
  prefix: 'toolwright' | 'reference',
  label: string,
  adapter: (typeof ADAPTERS)[number],
  dist?: string,
): BenchTarget {
  return {
    id: `${prefix}-${adapter}-otel`,
    label: `${label} + OpenTelemetry SDK`,
    entry: 'servers/toolwright.js',
    env: {
      ADAPTER: adapter,
      TELEMETRY: 'memory',
      ...(dist !== undefined && { TOOLWRIGHT_DIST: dist }),
    },
    telemetry: true,
    plain: [...new Set([`${prefix}-${adapter}`, `toolwright-${adapter}`])],
    scenarios: ALL_SCENARIOS,
    optIn: true,
  };
}

export const ALL_TARGETS: readonly BenchTarget[] = [
  {
    id: 'toolwright-express',
    label: 'toolwright (Express)',
    entry: 'servers/toolwright.js',
    env: { ADAPTER: 'express' },
    scenarios: ALL_SCENARIOS,
    floor: 'floor-express',
  },
  {
    id: 'toolwright-fastify',
    label: 'toolwright (Fastify)',
    entry: 'servers/toolwright.js',
    env: { ADAPTER: 'fastify' },
    scenarios: ALL_SCENARIOS,
    floor: 'floor-fastify',
  },
  // The peers declare no resources or prompts: the tools' cells only (no `scenarios`).
  {
    id: 'rekog',
    label: '@rekog/mcp-nest 2.0.5 (Express)',
    entry: 'servers/rekog.js',
    // Nest loads @nestjs/microservices by name from its own folder (the repository's
    // node_modules); bench/ installs it, so that lookup needs bench/node_modules on NODE_PATH.
    env: { NODE_PATH: join(BENCH_DIR, 'node_modules') },
  },
  {
    id: 'sdk',
    label: 'SDK createMcpHandler per request (node:http)',
    entry: 'servers/sdk.js',
  },
  // FastMCP 4.x is built on the MCP SDK 1.x: the 2025 revisions only.
  {
    id: 'fastmcp',
    label: 'fastmcp 4.20.16 (stateless httpStream, JSON)',
    entry: 'servers/fastmcp.js',
    eras: ['2025'],
  },
  // What Nest and the adapter cost for the same JSON-RPC work, without an MCP SDK (opt-in).
  ...ADAPTERS.map((adapter): BenchTarget => ({
    id: `floor-${adapter}`,
    label: `floor: Nest + ${NAME[adapter]}, no MCP SDK`,
    entry: 'servers/floor.js',
    env: { ADAPTER: adapter },
    scenarios: SCENARIOS,
    optIn: true,
  })),
  // The same floor with the request made current in an AsyncLocalStorage, as toolwright's
  // request capture does: its `× floor` is what that alone costs (opt-in); on Node 22 it runs on
  // promise hooks, from Node 24 on AsyncContextFrame.
  ...ADAPTERS.map((adapter): BenchTarget => ({
    id: `floor-${adapter}-context`,
    label: `floor + request context (${NAME[adapter]})`,
    entry: 'servers/floor.js',
    env: { ADAPTER: adapter, FLOOR_CONTEXT: '1' },
    scenarios: SCENARIOS,
    floor: `floor-${adapter}`,
    optIn: true,
  })),
  // Sign-in's cost: `tools/call echo` with a bearer JWT on every request (opt-in).
  ...ADAPTERS.map((adapter) => signedIn('toolwright', `toolwright (${NAME[adapter]})`, adapter)),
  // OpenTelemetry's cost: every cell with an SDK registered (opt-in).
  ...ADAPTERS.map((adapter) =>
    withTelemetry('toolwright', `toolwright (${NAME[adapter]})`, adapter),
  ),
  ...(REFERENCE
    ? ADAPTERS.flatMap((adapter): BenchTarget[] => [
        {
          id: `reference-${adapter}`,
          label: `reference build (${NAME[adapter]})`,
          entry: 'servers/toolwright.js',
          env: { ADAPTER: adapter, TOOLWRIGHT_DIST: REFERENCE },
          scenarios: ALL_SCENARIOS,
          floor: `floor-${adapter}`,
        },
        signedIn('reference', `reference build (${NAME[adapter]})`, adapter, REFERENCE),
        withTelemetry('reference', `reference build (${NAME[adapter]})`, adapter, REFERENCE),
      ])
    : []),
];
