import { createServer, type IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { createToolInvoker } from 'toolwright/core';
import { createMcpHttpHandler } from 'toolwright/mcp';
import { exportLedger } from './ledger.tool.js';

const invoker = createToolInvoker([exportLedger]);

// The same sign-in as ToolsModule's `mcp.auth`: metadata, 401 before the body is read, 403.
const mcp = createMcpHttpHandler(invoker, {
  serverInfo: { name: 'billing', version: '1.0.0' },
  allowedHosts: ['api.example.com'],
  auth: {
    issuers: 'https://sso.example.com/realms/billing',
    resource: 'https://api.example.com/mcp',
    scopesSupported: ['billing:read', 'billing:export'],
  },
  // The verified token is on `request.auth`; its principal reaches the calls by itself.
  context: (request: IncomingMessage & { auth?: AuthInfo }) => ({
    tenantId: (request.auth?.extra?.claims as { tenant?: string } | undefined)?.tenant,
  }),
});

const server = createServer((request, response) => {
  const path = request.url?.split('?')[0] ?? '/';
  // Route the protected resource metadata to the listener too: it serves both.
  if (path === '/mcp' || path.startsWith('/.well-known/oauth-protected-resource')) {
    return mcp(request, response);
  }
  response.writeHead(404).end();
});
server.listen(3000, '127.0.0.1');
