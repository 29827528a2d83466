/**
 * `fastmcp` 4.20 (the TypeScript framework, no Nest) serving the benchmark tools (see
 * `shared/tools.ts`) the way its README shows: `addTool` with Zod `parameters` and an
 * `outputSchema` (the handler returns the object; FastMCP validates it and answers it as
 * `structuredContent` beside its JSON as text), started with `transportType: 'httpStream'` in
 * stateless mode with `enableJsonResponse` (one JSON answer per POST, no SSE) at `/mcp`.
 *
 * Its HTTP server is mcp-proxy's `startHTTPServer` (`node:http`): each POST builds a new
 * `FastMCPSession` (an MCP SDK 1.x `Server` with every tool registered) and a stateless transport.
 * FastMCP 4.x speaks the 2025 revisions only: mcp-proxy refuses a 2026-07-28 request with a 400
 * ("the server instance cannot serve the 2026-07-28 protocol revision"), so the harness skips
 * its 2026 cells.
 *
 * Settings beside the README's: a logger that drops `debug`/`info`/`log` (the default, `console`,
 * writes a line to stdout for every stateless request), as the Nest servers log `error` and `warn`
 * only; CORS stays on (FastMCP's default). FastMCP has no body-size option (mcp-proxy's default
 * limit applies, far above the bench's requests), and `start()` does not tell the port it bound,
 * so with `PORT=0` a free loopback port is picked first and handed to it.
 *
 * The schemas come from the Zod copy FastMCP itself depends on (its ES module build, which its
 * JSON Schema conversion imports too), as a project with one Zod would have.
 *
 * Environment: `PORT` (default 3404; 0 picks a free port), `TOOLS` (default 51), `HOST`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FastMCP } from 'fastmcp';
import type * as Zod from 'zod';
import {
  ANNOTATIONS,
  answer,
  benchInput,
  benchOutput,
  benchTools,
  toolCountFromEnv,
} from '../shared/tools.js';
import { announceReady, exitOnSignals, portFromEnv } from '../shared/ready.js';

const setupStart = performance.now();

/** FastMCP's own Zod, as an ES module: the copy `fastmcp`'s dependencies resolve. */
async function fastmcpZod(): Promise<typeof Zod> {
  const fastmcpEntry = createRequire(import.meta.url).resolve('fastmcp');
  const manifest = createRequire(fastmcpEntry).resolve('zod/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports: { '.': { import: string } };
  };
  return (await import(
    pathToFileURL(join(dirname(manifest), exports['.'].import)).href
  )) as typeof Zod;
}

/** A free port on `host` (`start()` cannot bind port 0 and say which port it got). */
async function freePort(host: string): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

const { z } = await fastmcpZod();
const count = toolCountFromEnv();
const host = process.env.HOST ?? '127.0.0.1';
const quiet = () => undefined;

const server = new FastMCP({
  name: 'fastmcp-bench',
  version: '0.0.0',
  logger: { debug: quiet, info: quiet, log: quiet, warn: console.warn, error: console.error },
});
const output = benchOutput(z);
for (const spec of benchTools(count)) {
  server.addTool({
    name: spec.name,
    description: spec.description,
    parameters: benchInput(z, spec),
    outputSchema: output,
    annotations: { ...ANNOTATIONS },
    execute: async (input: { text: string }) => answer(input),
  });
}

const wanted = portFromEnv(3404);
const port = wanted === 0 ? await freePort(host) : wanted;
await server.start({
  transportType: 'httpStream',
  httpStream: { host, port, endpoint: '/mcp', stateless: true, enableJsonResponse: true },
});
exitOnSignals(() => server.stop());
const address: AddressInfo = { address: host, family: 'IPv4', port };
announceReady('fastmcp', address, count, setupStart);
