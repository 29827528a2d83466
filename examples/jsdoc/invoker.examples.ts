/**
 * The `@example` blocks of toolwright/core's invoker: creating it, its options, a call's
 * options, its results, and what an application plugs into it (telemetry, an instance bus, a
 * task store). Each `//#region <key>` is the example of the declaration it names, copied into
 * its JSDoc by `node scripts/sync-jsdoc-examples.mjs --write`; what an example uses without
 * declaring it is stubbed here.
 */
/* eslint-disable @typescript-eslint/no-unused-expressions -- an example may show a value */
import { Redis } from 'ioredis';
import { ToolsModule } from 'toolwright';
import {
  createToolInvoker,
  currentToolCall,
  type defineToolRegistry,
  InMemoryInstanceBus,
  InMemoryTaskStore,
  presentationOf,
  type ToolInvoker,
} from 'toolwright/core';
import { RedisInstanceBus, RedisTaskStore } from 'toolwright/redis';
import { pingTool } from './core.examples.js';

declare const invoker: ToolInvoker;
declare const registry: ReturnType<typeof defineToolRegistry>;
declare const logger: { log(message: string): void; warn(message: string): void };
declare function log(entry: object): void;
declare function prompt(message: string): Promise<boolean>;

export async function creating() {
  //#region createToolInvoker
  const invoker = createToolInvoker([pingTool], { hooks: { afterToolCall: (o) => log(o) } });
  await invoker.invoke('health_ping', {}, { transport: 'AGENT' }); // { ok: true, data: { pong: true } }
  //#endregion
}

export function options() {
  //#region ToolInvokerOptions.logUnexpectedErrors
  createToolInvoker(registry, { logUnexpectedErrors: 'warn' });
  //#endregion
  //#region ToolInvokerOptions.telemetry
  createToolInvoker(registry, {
    telemetry: { attributes: (context) => ({ 'app.tenant.id': context.tenantId as string }) },
  });
  //#endregion
  //#region ToolInvokerOptions.lintAnnotations
  createToolInvoker(registry, { lintAnnotations: true });
  //#endregion
}

export async function calls(id: string) {
  //#region toolwright/core!ToolInvoker
  const result = await invoker.invoke(
    'billing_get_invoice',
    { id: 'inv_1' },
    { transport: 'AGENT' },
  );
  //#endregion
  //#region InvokeOptions.ask
  invoker.invoke(
    'tickets_close',
    { id: 'T-1' },
    { transport: 'AGENT', ask: async () => ({ action: 'accept' }) },
  );
  //#endregion
  //#region ToolAsk
  await invoker.invoke(
    'tickets_close',
    { id: 'T-1' },
    {
      transport: 'AGENT',
      ask: async (question) => ({
        action: (await prompt(question.message)) ? 'accept' : 'decline',
      }),
    },
  );
  //#endregion
  //#region ToolPrincipal
  await invoker.invoke(
    'billing_void_invoice',
    { id },
    {
      transport: 'AGENT',
      context: { principal: { clientId: 'billing-cron', scopes: ['billing:write'] } },
    },
  );
  //#endregion
  return result;
}

export async function results() {
  //#region ToolResult
  const result = await invoker.invoke(
    'billing_get_invoice',
    { id: 'inv_1' },
    { transport: 'AGENT' },
  );
  if (result.ok) console.log(result.data);
  else console.warn(result.error.code, result.error.message);
  //#endregion
}

export async function presenting(name: string, args: unknown) {
  //#region presentationOf
  const result = await invoker.invoke(name, args, { transport: 'MCP', present: 'mcp' });
  const blocks = presentationOf(result);
  //#endregion
  return blocks;
}

export async function describing() {
  //#region ToolDescriptor
  invoker.manifest('MCP').map((d) => d.name);
  //#endregion
  //#region toolwright/core!ToolInvoker.find
  invoker.find('billing_get_invoice', 'MCP')?.inputSchema;
  //#endregion
  //#region toolwright/core!ToolInvoker.operations
  invoker.operations('MCP', 'resource').map((d) => d.name); // ['handbook', 'kb-article']
  //#endregion
}

export async function operations() {
  //#region toolwright/core!ToolInvoker.readResource
  const read = await invoker.readResource('kb://articles/reset-password', { transport: 'AGENT' });
  if (read.ok) console.log(read.data.contents[0]);
  //#endregion
  //#region toolwright/core!ToolInvoker.getPrompt
  const prompt = await invoker.getPrompt('triage_ticket', { id: 'T-1' }, { transport: 'AGENT' });
  //#endregion
  //#region toolwright/core!ToolInvoker.complete
  await invoker.complete('kb-article', { name: 'slug', value: 're' }, { transport: 'MCP' }); // ['reset-password']
  //#endregion
  return prompt;
}

export function inCall() {
  //#region currentToolCall
  const call = currentToolCall();
  if (call) logger.log(`inside ${call.name} (${call.source}), depth ${call.depth}`);
  //#endregion
}

export function callInfo() {
  //#region ToolCallInfo
  const call = currentToolCall();
  logger.log(`${call?.name} at depth ${call?.depth}`);
  //#endregion
}

export async function buses() {
  //#region InMemoryInstanceBus
  const bus = new InMemoryInstanceBus();
  await bus.subscribe('jobs', (message) => console.log(message));
  await bus.publish('jobs', 'done'); // logs "done"
  //#endregion
}

export function sharedBus() {
  //#region InstanceBus
  const redis = new Redis(process.env.REDIS_URL!);
  redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
  ToolsModule.forRoot({ registry, mcp: { bus: new RedisInstanceBus({ redis }) } });
  //#endregion
}

export function sharedTasks() {
  //#region TaskStore
  const redis = new Redis(process.env.REDIS_URL!);
  redis.on('error', (error) => logger.warn(`Redis: ${error.message}`));
  ToolsModule.forRoot({ registry, mcp: { tasks: { store: new RedisTaskStore({ redis }) } } });
  //#endregion
}

export function tasks() {
  //#region InMemoryTaskStore
  const store = new InMemoryTaskStore();
  //#endregion
  return store;
}
