/**
 * The `@example` of `createMcpHttpHandler`, with its imports: a region at the top level of its
 * own file (see mcp.examples.ts for the others of toolwright/mcp).
 */
import { pingTool } from './core.examples.js';

//#region createMcpHttpHandler
import { createServer } from 'node:http';
import { createToolInvoker } from 'toolwright/core';
import { createMcpHttpHandler } from 'toolwright/mcp';

const invoker = createToolInvoker([pingTool]);
const mcp = createMcpHttpHandler(invoker, {
  context: (req) => ({ tenantId: req.headers['x-tenant-id'] }),
});
createServer((req, res) =>
  req.url?.startsWith('/mcp') ? mcp(req, res) : res.writeHead(404).end(),
).listen(3000);
//#endregion

export function selection() {
  //#region McpEndpointOptions.select
  createMcpHttpHandler(invoker, { select: { services: ['billing'] } });
  //#endregion
}
