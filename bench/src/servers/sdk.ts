/**
 * The raw MCP SDK (`@modelcontextprotocol/server` 2.x) on `node:http`, in the SDK's own
 * per-request model: `createMcpHandler` calls the factory for every request, and the factory
 * builds a new `McpServer` and registers the benchmark tools (see `shared/tools.ts`) with
 * `registerTool`. 2025-era requests go to the handler's stateless legacy fallback.
 * `toNodeHandler` (`@modelcontextprotocol/node`) adapts it to Node's request and response.
 *
 * Environment: `PORT` (default 3403; 0 picks a free port), `TOOLS` (default 51), `HOST`.
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  ANNOTATIONS,
  answer,
  benchInput,
  benchOutput,
  BENCH_BODY_LIMIT,
  benchTools,
  toolCountFromEnv,
} from '../shared/tools.js';
import { announceReady, exitOnSignals, portFromEnv } from '../shared/ready.js';

const setupStart = performance.now();

const count = toolCountFromEnv();
const specs = benchTools(count);
const host = process.env.HOST ?? '127.0.0.1';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'sdk-bench', version: '0.0.0' });
  const output = benchOutput(z);
  for (const spec of specs) {
    server.registerTool(
      spec.name,
      {
        description: spec.description,
        inputSchema: benchInput(z, spec),
        outputSchema: output,
        annotations: { ...ANNOTATIONS },
      },
      (input: { text: string }) => {
        const structuredContent = answer(input);
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }],
          structuredContent,
        };
      },
    );
  }
  return server;
}

const handler = createMcpHandler(() => buildServer(), {
  legacy: 'stateless',
  maxRequestBodySize: BENCH_BODY_LIMIT,
});
const nodeHandler = toNodeHandler(handler, { maxRequestBodySize: BENCH_BODY_LIMIT });
const server = createServer((req, res) => {
  if (req.url?.split('?')[0] !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  void nodeHandler(req as never, res);
});
exitOnSignals(async () => {
  await handler.close();
  await new Promise((resolve) => server.close(resolve));
});
server.listen(portFromEnv(3403), host, () => {
  announceReady('sdk-per-request', server.address(), count, setupStart);
});
