/**
 * The `@example` blocks of toolwright/mcp's declarations: the HTTP handler's `ready`, the
 * endpoint's options and its sign-in (`createMcpHttpHandler` and `serveStdio`, with their
 * imports, have files of their own). Each `//#region <key>` is the example of the declaration
 * it names, copied into its JSDoc by `node scripts/sync-jsdoc-examples.mjs --write`; what an
 * example uses without declaring it is stubbed here.
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { ToolsModule } from 'toolwright';
import type { defineToolRegistry, ToolInvoker } from 'toolwright/core';
import { createMcpHttpHandler, type McpRequestListener } from 'toolwright/mcp';
import { RedisInstanceBus, RedisTaskStore } from 'toolwright/redis';

declare const invoker: ToolInvoker;
declare const registry: ReturnType<typeof defineToolRegistry>;
declare const redis: Redis;
declare const handler: McpRequestListener;

export async function ready() {
  //#region McpRequestListener.ready
  await handler.ready();
  createServer(handler).listen(3000);
  //#endregion
}

export function endpointOptions() {
  //#region McpEndpointOptions.requestState
  createMcpHttpHandler(invoker, { requestState: { key: process.env.MCP_STATE_KEY } });
  //#endregion
  //#region McpEndpointOptions.tasks
  createMcpHttpHandler(invoker, {
    tasks: { store: new RedisTaskStore({ redis }) },
    bus: new RedisInstanceBus({ redis }),
  });
  //#endregion
}

export function sharedBus() {
  //#region McpEndpointOptions.bus
  const redis = new Redis(process.env.REDIS_URL!);
  redis.on('error', (error) => console.warn(`Redis: ${error.message}`));
  createMcpHttpHandler(invoker, { bus: new RedisInstanceBus({ redis }) });
  //#endregion
}

export function auth() {
  //#region McpAuthOptions
  ToolsModule.forRoot({
    registry,
    mcp: {
      auth: {
        issuers: 'https://auth.example.com/realms/billing',
        resource: 'https://api.example.com/mcp',
        scopesSupported: ['billing:read', 'billing:write'],
      },
    },
  });
  //#endregion
}
