/**
 * Any Standard Schema, on every surface: the same tool, template and prompt declared with Zod,
 * Valibot (its Standard JSON Schema form), ArkType, a plain JSON Schema document and a Valibot
 * schema given its JSON Schema by `withJsonSchema`, each called in process, over MCP by both
 * client generations, as AI SDK and LangChain tools, from the command line and from a Nest
 * `@ToolFactory` class. Each library's own validation runs (its messages reach the caller) and
 * each listing carries the library's JSON Schema.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Injectable, Module } from '@nestjs/common';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { createAgentTools } from '../../lib/ai/index.js';
import { runCliCommand } from '../../lib/cli/cli-commands.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import {
  Tool,
  ToolFactory,
  ToolInvoker,
  ToolsConfigurationError,
  ToolsModule,
  createRuntimeToolFactory,
  createToolInvoker,
  definePrompt,
  defineResourceTemplate,
  defineRuntimeTool,
  withJsonSchema,
  type ToolCall,
  type ToolSchema,
} from '../../lib/index.js';
import type { ToolInputSchema } from '../../lib/core/runtime-tool.js';
import { createLangChainTools } from '../../lib/langchain/index.js';
import { TestApps } from '../fixtures/apps.js';
import { listenMcp } from '../fixtures/mcp-http.js';
import { connectClient, GENERATIONS, textJson } from '../mcp/support.js';

/** What each library declares: the same shapes, in its own words. */
interface Schemas {
  readonly input: ToolInputSchema;
  readonly output: ToolSchema;
  readonly context: ToolSchema;
  readonly variables: ToolInputSchema;
  readonly args: ToolInputSchema;
}

const ORDER_JSON = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 2 },
    qty: { type: 'integer', minimum: 1 },
  },
  required: ['id'],
} as const;

const LIBRARIES: Record<string, Schemas> = {
  zod: {
    input: z.object({ id: z.string().min(2), qty: z.int().min(1).optional() }),
    output: z.object({ id: z.string(), total: z.number() }),
    context: z.object({ tenantId: z.string() }),
    variables: z.object({ slug: z.string().min(2) }),
    args: z.object({ topic: z.string() }),
  },
  valibot: {
    input: toStandardJsonSchema(
      v.object({
        id: v.pipe(v.string(), v.minLength(2)),
        qty: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      }),
    ),
    output: toStandardJsonSchema(v.object({ id: v.string(), total: v.number() })),
    context: toStandardJsonSchema(v.object({ tenantId: v.string() })),
    variables: toStandardJsonSchema(v.object({ slug: v.pipe(v.string(), v.minLength(2)) })),
    args: toStandardJsonSchema(v.object({ topic: v.string() })),
  },
  arktype: {
    input: type({ id: 'string>=2', 'qty?': 'number.integer>=1' }),
    output: type({ id: 'string', total: 'number' }),
    context: type({ tenantId: 'string' }),
    variables: type({ slug: 'string>=2' }),
    args: type({ topic: 'string' }),
  },
  'JSON Schema': {
    input: ORDER_JSON,
    output: {
      type: 'object',
      properties: { id: { type: 'string' }, total: { type: 'number' } },
      required: ['id', 'total'],
    },
    context: {
      type: 'object',
      properties: { tenantId: { type: 'string' } },
      required: ['tenantId'],
    },
    variables: {
      type: 'object',
      properties: { slug: { type: 'string', minLength: 2 } },
      required: ['slug'],
    },
    args: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  },
  'valibot withJsonSchema': {
    input: withJsonSchema(
      v.object({
        id: v.pipe(v.string(), v.minLength(2)),
        qty: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
      }),
      ORDER_JSON,
    ),
    output: withJsonSchema(v.object({ id: v.string(), total: v.number() }), {
      type: 'object',
      properties: { id: { type: 'string' }, total: { type: 'number' } },
      required: ['id', 'total'],
    }),
    context: withJsonSchema(v.object({ tenantId: v.string() }), {
      type: 'object',
      properties: { tenantId: { type: 'string' } },
    }),
    variables: withJsonSchema(v.object({ slug: v.pipe(v.string(), v.minLength(2)) }), {
      type: 'object',
      properties: { slug: { type: 'string', minLength: 2 } },
      required: ['slug'],
    }),
    args: withJsonSchema(v.object({ topic: v.string() }), {
      type: 'object',
      properties: { topic: { type: 'string' } },
      required: ['topic'],
    }),
  },
};

/** The tools, a template and a prompt of one library; `bad` returns what its output refuses. */
function operations(schemas: Schemas) {
  const orders = createRuntimeToolFactory({ serviceName: 'orders', context: schemas.context });
  return [
    orders.define({
      action: 'get',
      method: 'GET',
      description: 'Fetch one order',
      input: schemas.input,
      output: schemas.output,
      transports: ['MCP', 'AGENT', 'CLI'],
      handler: ({ input, context }) => {
        const { id, qty = 1 } = input as { id: string; qty?: number };
        return { id: `${(context as { tenantId: string }).tenantId}:${id}`, total: qty * 10 };
      },
    }),
    defineRuntimeTool({
      description: 'Answer an order of the wrong shape',
      identity: { serviceName: 'orders', action: 'bad', method: 'GET' },
      input: schemas.input,
      output: schemas.output,
      handler: () => ({ id: 7 }) as never,
    }),
    defineResourceTemplate({
      name: 'article',
      uriTemplate: 'kb://articles/{slug}',
      variables: schemas.variables,
      read: ({ input }) => `Article ${(input as { slug: string }).slug}`,
    }),
    definePrompt({
      name: 'explain',
      args: schemas.args,
      get: ({ input }) => `Explain ${(input as { topic: string }).topic}.`,
    }),
  ];
}

const CONTEXT = { tenantId: 'acme' };
const IN_PROCESS = { transport: 'MCP', context: CONTEXT } as const;

describe.each(Object.keys(LIBRARIES))('%s schemas', (library) => {
  const schemas = LIBRARIES[library];
  const invoker = createToolInvoker(operations(schemas), { logger: silentLogger() });

  describe('in process', () => {
    it('parses the input and the context, and checks the output', async () => {
      await expect(
        invoker.invokeOrThrow('orders_get', { id: 'o1', qty: 2 }, IN_PROCESS),
      ).resolves.toEqual({ id: 'acme:o1', total: 20 });
    });

    it("refuses a bad input with the library's issues, each with its path", async () => {
      const result = await invoker.invoke('orders_get', { id: 'x', qty: 0 }, IN_PROCESS);
      expect(result.ok).toBe(false);
      const error = (result as { error: any }).error;
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details.target).toBe('input');
      expect(error.details.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
        'id',
        'qty',
      ]);
    });

    it('refuses a context the schema does not accept', async () => {
      const result = await invoker.invoke(
        'orders_get',
        { id: 'o1' },
        { transport: 'MCP', context: {} },
      );
      expect((result as { error: any }).error).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: { target: 'context' },
      });
    });

    it('answers an internal error when the output does not match', async () => {
      const result = await invoker.invoke('orders_bad', { id: 'o1' }, IN_PROCESS);
      expect((result as { error: any }).error.code).toBe('INTERNAL_SERVER_ERROR');
    });

    it('reads a template and gets a prompt, their variables and arguments parsed', async () => {
      await expect(invoker.readResource('kb://articles/intro', IN_PROCESS)).resolves.toMatchObject({
        ok: true,
        data: { contents: [{ uri: 'kb://articles/intro', text: 'Article intro' }] },
      });
      const short = await invoker.readResource('kb://articles/i', IN_PROCESS);
      expect((short as { error: any }).error.code).toBe('VALIDATION_ERROR');
      await expect(
        invoker.getPrompt('explain', { topic: 'tasks' }, IN_PROCESS),
      ).resolves.toMatchObject({
        ok: true,
        data: { messages: [{ role: 'user', content: { type: 'text', text: 'Explain tasks.' } }] },
      });
    });

    it('lists the JSON Schema of the library', () => {
      const { inputSchema, outputSchema } = invoker.find('orders_get', 'MCP')!;
      expect(inputSchema).toMatchObject(ORDER_JSON);
      expect(outputSchema).toMatchObject({ type: 'object', required: ['id', 'total'] });
    });
  });

  describe.each(GENERATIONS)('over MCP, %s', (generation) => {
    let served: Awaited<ReturnType<typeof listenMcp>>;
    beforeAll(async () => {
      served = await listenMcp(invoker, { context: () => CONTEXT });
    });
    afterAll(() => served.close());

    it('lists, calls, refuses, reads and gets', async () => {
      const client = await connectClient(generation, served.url);
      try {
        const { tools } = await client.listTools();
        const get = tools.find((tool: { name: string }) => tool.name === 'orders_get')!;
        expect(get.inputSchema).toMatchObject(ORDER_JSON);
        const ok: any = await client.callTool('orders_get', { id: 'o1', qty: 3 });
        expect(ok.structuredContent).toEqual({ id: 'acme:o1', total: 30 });
        const refused: any = await client.callTool('orders_get', { id: 'x' });
        expect(refused.isError).toBe(true);
        expect(textJson(refused)).toMatchObject({ error: 'VALIDATION_ERROR' });
        const raw = client.raw as any;
        await expect(raw.readResource({ uri: 'kb://articles/intro' })).resolves.toMatchObject({
          contents: [{ text: 'Article intro' }],
        });
        await expect(
          raw.getPrompt({ name: 'explain', arguments: { topic: 'tasks' } }),
        ).resolves.toMatchObject({ messages: [{ content: { text: 'Explain tasks.' } }] });
      } finally {
        await client.close();
      }
    });
  });

  it('runs as AI SDK tools, with the listed JSON Schema', async () => {
    const tools = createAgentTools(invoker, { context: CONTEXT });
    const get = tools.orders_get as any;
    expect(get.inputSchema.jsonSchema).toMatchObject(ORDER_JSON);
    await expect(
      get.execute({ id: 'o1' }, { toolCallId: 'c1', messages: [] }),
    ).resolves.toMatchObject({ id: 'acme:o1', total: 10 });
  });

  it('runs as LangChain tools; the runner is the one validator', async () => {
    const tools = createLangChainTools(invoker, { context: CONTEXT });
    const get = tools.find((tool) => tool.name === 'orders_get')!;
    await expect(get.invoke({ id: 'o1' })).resolves.toBe('{"id":"acme:o1","total":10}');
    await expect(get.invoke({ id: 'x' })).resolves.toContain('VALIDATION_ERROR');
  });

  it('runs from the command line: describe shows the schema, call validates', async () => {
    const out = () => {
      const sink = { text: '', write: (chunk: string) => ((sink.text += chunk), true) };
      return sink;
    };
    const described = out();
    await runCliCommand(
      invoker,
      { command: 'describe', name: 'orders_get', json: false },
      { stdout: described as never, stderr: out() as never },
    );
    expect(described.text).toContain('"minLength": 2');
    const called = out();
    const code = await runCliCommand(
      invoker,
      { command: 'call', name: 'orders_get', json: true, input: { id: 'o1', qty: 4 } },
      { stdout: called as never, stderr: out() as never, context: CONTEXT },
    );
    expect(code).toBe(0);
    expect(JSON.parse(called.text)).toEqual({ id: 'acme:o1', total: 40 });
  });
});

describe('a Nest @ToolFactory class with Valibot and ArkType schemas', () => {
  const apps = new TestApps();
  afterAll(() => apps.closeAll());

  @ToolFactory({ serviceName: 'catalog', context: type({ tenantId: 'string' }) })
  @Injectable()
  class CatalogTools {
    @Tool({
      action: 'find',
      method: 'GET',
      description: 'Find an item',
      input: toStandardJsonSchema(v.object({ sku: v.pipe(v.string(), v.minLength(3)) })),
      output: type({ sku: 'string', tenant: 'string' }),
    })
    find({ input, context }: ToolCall<{ sku: string }, { tenantId: string }>) {
      return { sku: input.sku, tenant: context.tenantId };
    }
  }

  @Module({
    imports: [ToolsModule.forRoot({ registry: [CatalogTools], mcp: false })],
    providers: [CatalogTools],
  })
  class AppModule {}

  it('validates through the one runner', async () => {
    const app = await apps.create({ imports: [AppModule] });
    await app.init();
    const invoker = app.get(ToolInvoker);
    await expect(
      invoker.invokeOrThrow('catalog_find', { sku: 'A-1' }, IN_PROCESS),
    ).resolves.toEqual({ sku: 'A-1', tenant: 'acme' });
    const refused = await invoker.invoke('catalog_find', { sku: 'A' }, IN_PROCESS);
    expect((refused as { error: any }).error.details.issues[0]).toMatchObject({ path: 'sku' });
  });
});

describe('a schema MCP cannot list', () => {
  it('is refused at definition, naming the fix', () => {
    const bare = v.object({ id: v.string() });
    const define = () =>
      defineRuntimeTool({
        description: 'Bare Valibot',
        identity: { serviceName: 'bare', action: 'get', method: 'GET' },
        input: bare,
        handler: () => null,
      });
    expect(define).toThrow(ToolsConfigurationError);
    expect(define).toThrow(
      CORE_MESSAGES.noJsonSchema('Tool "bare_get" (runtime tool bare.get)', 'input', 'valibot'),
    );
    expect(define).toThrow(/withJsonSchema/);
  });

  it('refuses an object that is no schema, and a JSON Schema that is not one', () => {
    expect(() =>
      defineRuntimeTool({
        description: 'Shape',
        identity: { serviceName: 'shape', action: 'get', method: 'GET' },
        input: { id: z.string() } as never,
        handler: () => null,
      }),
    ).toThrow(CORE_MESSAGES.inputNotObject('shape_get', 'runtime tool shape.get'));
    expect(() =>
      createToolInvoker([
        defineRuntimeTool({
          description: 'Broken JSON Schema',
          identity: { serviceName: 'broken', action: 'get', method: 'GET' },
          input: { type: 'object', properties: { id: { type: 'no-such-type' } } },
          handler: () => null,
        }),
      ]),
    ).toThrow(ToolsConfigurationError);
  });
});

function silentLogger() {
  const quiet = () => undefined;
  return { log: quiet, warn: quiet, error: quiet, debug: quiet };
}
