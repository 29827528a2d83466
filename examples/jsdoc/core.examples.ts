/**
 * The `@example` blocks of toolwright/core's declarations: tools, resources, prompts, the
 * registry, errors, hooks and guards. Each `//#region <key>` is the example of the declaration
 * it names, copied into its JSDoc by `node scripts/sync-jsdoc-examples.mjs --write`; what an
 * example uses without declaring it is stubbed here.
 */
/* eslint-disable @typescript-eslint/no-unused-expressions -- an example may show a value */
import { readFile } from 'node:fs/promises';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { z } from 'zod';
import {
  createRuntimeToolFactory,
  createToolInvoker,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineRuntimeTool,
  defineToolRegistry,
  isProgrammingError,
  ToolError,
  ToolsConfigurationError,
  withJsonSchema,
  type ToolGuard,
  type ToolHooks,
} from 'toolwright/core';

declare const invoices: { find(tenantId: string, id: string): Promise<{ id: string }> };
declare const articles: { slugs(): string[]; body(slug: string): Promise<string> };
declare const log: { info(entry: object): void };
declare const logger: { error(message: string): void };
declare class InvoiceTools {}

export const findCustomer = defineRuntimeTool({
  description: 'Find a customer by email',
  identity: { serviceName: 'customers', action: 'find', method: 'GET' },
  //#region JsonSchemaDocument
  input: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
  //#endregion
  handler: ({ input }) => ({ email: String(input.email) }),
});

declare const mySchema: StandardSchemaV1<{ q: string }>;

//#region withJsonSchema
const Query = withJsonSchema(mySchema, {
  type: 'object',
  properties: { q: { type: 'string' } },
  required: ['q'],
});
//#endregion

export const search = defineRuntimeTool({
  description: 'Search',
  identity: { serviceName: 'search', action: 'run', method: 'GET' },
  input: Query,
  handler: ({ input }) => input.q,
});

//#region defineRuntimeTool
export const pingTool = defineRuntimeTool({
  description: 'Answer pong',
  identity: { serviceName: 'health', action: 'ping', method: 'GET' },
  input: z.object({}),
  output: z.object({ pong: z.boolean() }),
  handler: () => ({ pong: true }),
});
//#endregion

const Priority = z.object({ priority: z.enum(['low', 'normal', 'high']) });

export const closeTicket = defineRuntimeTool({
  description: 'Close a ticket once the user confirms',
  identity: { serviceName: 'tickets', action: 'close', method: 'POST' },
  input: z.object({ id: z.string() }),
  asks: { confirm: true, elicit: [Priority] },
  //#region ToolCall
  handler: async ({ input, context, signal, reportProgress, log, call, confirm, elicit }) => {
    if (!(await confirm(`Close ticket ${input.id}?`))) return { closed: false };
    const answer = await elicit({ message: 'Priority of the follow-up?', schema: Priority });
    reportProgress({ progress: 1, total: 2, message: 'closing' });
    log.info(`${call.name} closes ${input.id} for ${String(context.tenantId)}`);
    return {
      closed: !signal.aborted,
      followUp: answer.action === 'accept' ? answer.content : null,
    };
  },
  //#endregion
});

export const exportReport = defineRuntimeTool({
  description: 'Export a report',
  identity: { serviceName: 'reports', action: 'export', method: 'POST' },
  input: z.object({ id: z.string() }),
  //#region RuntimeToolConfig.asks
  asks: { confirm: true, elicit: [z.object({ priority: z.enum(['low', 'high']) })] },
  //#endregion
  //#region RuntimeToolConfig.task
  task: 'optional',
  //#endregion
  //#region RuntimeToolConfig.tags
  tags: ['admin'],
  //#endregion
  //#region RuntimeToolConfig._meta
  _meta: { 'io.modelcontextprotocol/ui': { resourceUri: 'ui://invoices/chart' } },
  //#endregion
  handler: async ({ input, log }) => {
    log.warn(`Retrying ${input.id}`);
  },
});

//#region createRuntimeToolFactory
const billing = createRuntimeToolFactory({
  serviceName: 'billing',
  scope: 'tenant',
  context: z.object({ tenantId: z.string() }),
});
export const getInvoice = billing.define({
  action: 'getInvoice',
  method: 'GET',
  description: 'Fetch one invoice',
  input: z.object({ id: z.string() }),
  handler: ({ input, context }) => invoices.find(context.tenantId, input.id),
});
//#endregion

//#region defineResource
export const handbook = defineResource({
  uri: 'kb://handbook',
  name: 'handbook',
  title: 'Support handbook',
  mimeType: 'text/markdown',
  read: () => readFile('handbook.md', 'utf8'),
});
//#endregion

//#region defineResourceTemplate
export const article = defineResourceTemplate({
  uriTemplate: 'kb://articles/{slug}',
  name: 'kb-article',
  mimeType: 'text/markdown',
  variables: z.object({ slug: z.string().regex(/^[a-z0-9-]+$/) }),
  complete: { slug: (value) => articles.slugs().filter((slug) => slug.startsWith(value)) },
  read: ({ input }) => articles.body(input.slug),
});
//#endregion

//#region definePrompt
export const triage = definePrompt({
  name: 'triage_ticket',
  description: 'Triage a ticket',
  args: z.object({ id: z.string() }),
  get: ({ input }) => `Triage ticket ${input.id}: summarise it and suggest a priority.`,
});
//#endregion

export function registry() {
  //#region defineToolRegistry
  const registry = defineToolRegistry({ defaults: [InvoiceTools, pingTool] }).disable(
    'billing_void_invoice',
  );
  registry.build().names; // ['billing_get_invoice', 'health_ping']
  //#endregion
}

export function errors(input: { id: string }) {
  //#region ToolError
  throw new ToolError('NOT_FOUND', {
    message: `No invoice ${input.id}`,
    hint: 'List invoices first',
  });
  //#endregion
}

export function narrowing(err: unknown) {
  //#region ToolError.is
  if (ToolError.is(err) && err.code === 'NOT_FOUND') return null;
  //#endregion
  throw err;
}

export function programmingErrors(error: unknown) {
  //#region isProgrammingError
  if (isProgrammingError(error)) logger.error(String(error)); // the closest names, for the developer
  //#endregion
}

export function configurationErrors(otherPing: typeof pingTool) {
  //#region ToolsConfigurationError
  try {
    createToolInvoker([pingTool, otherPing]);
  } catch (error) {
    if (error instanceof ToolsConfigurationError) console.error(error.message);
    // Duplicate tool name "health_ping": declared by runtime tool health.ping and by runtime tool
    // health.pong. Rename one of them, or keep only one.
  }
  //#endregion
}

export function hooks() {
  //#region ToolHooks
  const audit: ToolHooks = {
    afterToolCall: ({ name, call, result, durationMs }) =>
      log.info({ name, source: call.source, ok: result.ok, durationMs }),
  };
  //#endregion
  return audit;
}

export function guards() {
  //#region ToolGuard
  const adminsOnly: ToolGuard = {
    canActivate: ({ tool, context }) =>
      tool.identity.scope !== 'admin' || (context as { role?: string }).role === 'admin',
    canList: (tool, context) => tool.identity.scope !== 'admin' || context.role === 'admin',
  };
  //#endregion
  return adminsOnly;
}
