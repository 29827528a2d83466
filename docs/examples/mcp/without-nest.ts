import { createServer } from 'node:http';
import { z } from 'zod';
import { createToolInvoker, defineRuntimeTool, ToolError } from 'toolwright/core';
import { createMcpHttpHandler } from 'toolwright/mcp';

const getInvoice = defineRuntimeTool({
  description: 'Fetch one invoice by id',
  identity: { serviceName: 'billing', action: 'getInvoice', method: 'GET' },
  input: z.object({ id: z.string() }),
  handler: ({ input, context }) => ({ id: input.id, tenantId: context.tenantId }),
});

const invoker = createToolInvoker([getInvoice]);

// The same endpoint ToolsModule mounts: both eras, Host/Origin checks, bounded bodies.
const mcp = createMcpHttpHandler(invoker, {
  serverInfo: { name: 'billing', version: '1.0.0' },
  // Resolved once per request that needs it; a ToolError here is the call's answer.
  context: (request) => {
    const tenantId = request.headers['x-tenant-id'];
    if (typeof tenantId !== 'string') throw new ToolError('UNAUTHORIZED', { message: 'No tenant' });
    return { tenantId };
  },
});

const server = createServer((request, response) => {
  if (request.url?.split('?')[0] === '/mcp') return mcp(request, response);
  response.writeHead(404).end();
});
server.listen(3000, '127.0.0.1');

process.once('SIGTERM', async () => {
  await mcp.close({ graceMs: 10_000 }); // new requests get 503, answers being written finish
  await invoker.close({ graceMs: 10_000 }); // running calls finish, then their signals abort
  server.close();
});
