import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  defineRuntimeTool,
  defineToolRegistry,
  ToolError,
  type ToolHooks,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import { isProgrammingError, ToolsConfigurationError } from '../../lib/core/errors.js';
import { catalogInvoker } from '../../lib/core/catalog-invoker.js';
import { defineToolClass } from '../../lib/core/tool-class.js';
import { makeTool } from './support.js';

const getInvoice = defineRuntimeTool({
  description: 'Fetch one invoice',
  identity: { serviceName: 'billing', action: 'getInvoice', method: 'GET', scope: 'tenant' },
  input: z.object({ id: z.string() }),
  output: z.object({ id: z.string(), total: z.number() }),
  handler: ({ input }) => ({ id: input.id, total: 10 }),
});
const listInvoices = makeTool({ service: 'billing', action: 'listInvoices', method: 'GET' });
const voidInvoice = makeTool({ service: 'billing', action: 'voidInvoice', method: 'DELETE' });
const ping = makeTool({ service: 'health', action: 'ping', method: 'GET' });
const migrate = makeTool({ service: 'admin', action: 'migrate', transports: ['CLI'] });
const everywhere = makeTool({
  service: 'zeta',
  action: 'all',
  transports: ['CLI', 'AGENT', 'MCP'],
});

class AuditTools {
  recent() {
    return ['entry'];
  }
}
defineToolClass(AuditTools, {
  serviceName: 'audit',
  tools: [
    {
      methodName: 'recent',
      action: 'recent',
      method: 'GET',
      description: 'Recent audit entries',
      input: z.object({}),
    },
  ],
});

const all = [getInvoice, voidInvoice, ping, migrate, listInvoices, everywhere, AuditTools];

function spyHooks() {
  return {
    beforeToolCall: jest.fn(),
    afterToolCall: jest.fn(),
    onToolError: jest.fn(),
  } satisfies ToolHooks;
}

describe('createToolInvoker inputs', () => {
  it('accepts a registry builder, its build() result and an array alike', async () => {
    const builder = defineToolRegistry({ defaults: all });
    const invokers = [
      createToolInvoker(builder),
      createToolInvoker(builder.build()),
      createToolInvoker(all),
    ];
    for (const invoker of invokers) {
      expect(invoker.names('AGENT')).toEqual([
        'audit_recent',
        'billing_get_invoice',
        'billing_list_invoices',
        'billing_void_invoice',
        'health_ping',
        'zeta_all',
      ]);
      await expect(
        invoker.invoke('billing_get_invoice', { id: 'inv_1' }, { transport: 'AGENT' }),
      ).resolves.toEqual({ ok: true, data: { id: 'inv_1', total: 10 } });
      await expect(invoker.invoke('audit_recent', {}, { transport: 'MCP' })).resolves.toEqual({
        ok: true,
        data: ['entry'],
      });
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(createToolInvoker([ping]))).toBe(true);
  });

  it('refuses duplicate names in a list, naming both origins', () => {
    const again = makeTool({ name: 'health_ping', service: 'x', action: 'y' });
    expect(() => createToolInvoker([ping, again])).toThrow(
      CORE_MESSAGES.duplicateName('health_ping', 'runtime tool health.ping', 'runtime tool x.y'),
    );
  });

  it('refuses a hand-made registry holding a tool that cannot be mounted', () => {
    const bad = { ...ping, name: 'bad/name' };
    expect(() => createToolInvoker({ tools: [bad], names: ['bad/name'] })).toThrow(
      CORE_MESSAGES.toolName(
        'bad/name',
        'runtime tool health.ping',
        'must match ^[a-zA-Z0-9_-]{1,64}$',
      ),
    );
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3'])(
    'refuses maxDepth %p',
    (maxDepth) => {
      expect(() => createToolInvoker([ping], { maxDepth: maxDepth as any })).toThrow(
        new ToolsConfigurationError(CORE_MESSAGES.maxDepth(maxDepth)),
      );
    },
  );

  it('accepts maxDepth 0', () => {
    expect(() => createToolInvoker([ping], { maxDepth: 0 })).not.toThrow();
  });
});

describe('invoke', () => {
  it("rejects a caller's unknown name with NOT_FOUND listing similar names, before any hook runs", async () => {
    const hooks = spyHooks();
    const onCallFinished = jest.fn();
    const invoker = createToolInvoker(all, { hooks, onCallFinished });
    let caught: unknown;
    await invoker
      .invoke('billing_get_invoic', { id: 'x' }, { transport: 'AGENT', source: 'support-bot' })
      .catch((error) => (caught = error));
    expect(caught).toBeInstanceOf(ToolError);
    expect(caught).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      details: { name: 'billing_get_invoic', transport: 'AGENT' },
    });
    const message = (caught as ToolError).message;
    expect(message).toMatch(
      /^Unknown tool "billing_get_invoic"\. Did you mean "billing_get_invoice"/,
    );
    expect(message.match(/"billing_/g)!.length).toBeLessThanOrEqual(4); // the name + up to 3
    expect(hooks.beforeToolCall).not.toHaveBeenCalled();
    expect(hooks.afterToolCall).not.toHaveBeenCalled();
    expect(hooks.onToolError).not.toHaveBeenCalled();
    expect(onCallFinished).not.toHaveBeenCalled();
  });

  it("rejects the application's own unknown name (source 'internal', the default) with NOT_FOUND too, marked a programming error, before any hook runs", async () => {
    const hooks = spyHooks();
    const onCallFinished = jest.fn();
    const invoker = createToolInvoker(all, { hooks, onCallFinished });
    for (const source of [undefined, 'internal']) {
      let caught: unknown;
      await invoker
        .invoke('billing_get_invoic', {}, { transport: 'AGENT', source })
        .catch((error) => (caught = error));
      expect(ToolError.is(caught)).toBe(true);
      expect(caught).toMatchObject({
        code: 'NOT_FOUND',
        status: 404,
        message:
          'Unknown tool "billing_get_invoic". Did you mean "billing_get_invoice", "billing_list_invoices", "billing_void_invoice"?',
        details: { name: 'billing_get_invoic', transport: 'AGENT' },
      });
      expect(isProgrammingError(caught)).toBe(true);
    }
    // A caller's unknown name is no programming error.
    const caller = await invoker
      .invoke('billing_get_invoic', {}, { transport: 'AGENT', source: 'rest' })
      .catch((error: unknown) => error);
    expect(isProgrammingError(caller)).toBe(false);
    expect(hooks.beforeToolCall).not.toHaveBeenCalled();
    expect(hooks.onToolError).not.toHaveBeenCalled();
    expect(onCallFinished).not.toHaveBeenCalled();
  });

  it("answers INTERNAL_SERVER_ERROR, logged, when the application's own unknown name escapes a handler", async () => {
    const logged: unknown[][] = [];
    const logger = { error: (...args: unknown[]) => void logged.push(args), warn: () => {} };
    const outer = defineRuntimeTool({
      description: 'Calls a tool by a misspelt name',
      identity: { serviceName: 'billing', action: 'outer', method: 'GET' },
      input: z.object({}),
      handler: () => invoker.invokeOrThrow('billing_get_invoic', {}, { transport: 'AGENT' }),
    });
    const invoker = createToolInvoker([...all, outer], { logger });
    for (const source of ['mcp', 'internal']) {
      expect(await invoker.invoke('billing_outer', {}, { transport: 'AGENT', source })).toEqual({
        ok: false,
        error: {
          code: 'INTERNAL_SERVER_ERROR',
          message: 'Internal server error',
          retryable: false,
        },
      });
    }
    expect(logged).toHaveLength(2);
    expect(String(logged[0][0])).toMatch(
      /^\[toolwright\] Tool "billing_outer" failed unexpectedly/,
    );
    expect((logged[0][1] as Error).message).toMatch(/^Unknown tool "billing_get_invoic"/);
  });

  it('treats a tool not exposed on the transport as unknown for that call', async () => {
    const hooks = spyHooks();
    const invoker = createToolInvoker(all, { hooks });
    await expect(
      invoker.invoke('admin_migrate', {}, { transport: 'AGENT', source: 'agent' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { name: 'admin_migrate', transport: 'AGENT' },
    });
    await expect(
      invoker.invoke('admin_migrate', {}, { transport: 'MCP', source: 'mcp' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(hooks.beforeToolCall).not.toHaveBeenCalled();
    await expect(invoker.invoke('admin_migrate', { a: 1 }, { transport: 'CLI' })).resolves.toEqual({
      ok: true,
      data: { a: 1 },
    });
    expect(hooks.beforeToolCall).toHaveBeenCalledTimes(1);
  });

  it('does not find names inherited from Object.prototype', async () => {
    const invoker = createToolInvoker(all);
    const mcp = { transport: 'MCP', source: 'mcp' } as const;
    await expect(invoker.invoke('toString', {}, mcp)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(invoker.invoke('constructor', {}, mcp)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it.each([
    ['no options', undefined],
    ['no transport', {}],
    ['an unknown transport', { transport: 'HTTP' }],
    ['a lower-case transport', { transport: 'mcp' }],
  ])('rejects %s with a TypeError before any hook runs', async (_label, options) => {
    const hooks = spyHooks();
    const invoker = createToolInvoker(all, { hooks });
    const pending = invoker.invoke('health_ping', {}, options as any);
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toThrow(TypeError);
    await expect(invoker.invoke('health_ping', {}, options as any)).rejects.toThrow(
      /^A call needs \{ transport \} set to one of MCP, AGENT, CLI; got /,
    );
    expect(hooks.beforeToolCall).not.toHaveBeenCalled();
    expect(hooks.afterToolCall).not.toHaveBeenCalled();
  });

  it("defaults the source to 'internal'", async () => {
    const afterToolCall = jest.fn<NonNullable<ToolHooks['afterToolCall']>>();
    const invoker = createToolInvoker(all, { hooks: { afterToolCall } });
    await invoker.invoke('health_ping', {}, { transport: 'MCP' });
    await invoker.invoke('health_ping', {}, { transport: 'MCP', source: 'mcp' });
    expect(afterToolCall.mock.calls.map(([options]) => options.call.source)).toEqual([
      'internal',
      'mcp',
    ]);
  });

  it('applies mapError to thrown values', async () => {
    class Teapot extends Error {}
    const tool = makeTool({
      handler: () => {
        throw new Teapot('short and stout');
      },
    });
    const invoker = createToolInvoker([tool], {
      mapError: (error) =>
        error instanceof Teapot
          ? new ToolError('TEAPOT', { status: 418, message: 'tea' })
          : undefined,
    });
    await expect(invoker.invoke('test_run', {}, { transport: 'MCP' })).resolves.toEqual({
      ok: false,
      error: { code: 'TEAPOT', message: 'tea', retryable: false },
    });
  });

  it('runs global guards on every tool', async () => {
    const canActivate = jest.fn(
      ({ tool }: { tool: { name: string } }) => tool.name !== 'health_ping',
    );
    const invoker = createToolInvoker(all, { guards: [{ canActivate }] });
    expect((await invoker.invoke('health_ping', {}, { transport: 'MCP' })).ok).toBe(false);
    expect((await invoker.invoke('audit_recent', {}, { transport: 'MCP' })).ok).toBe(true);
    expect(canActivate).toHaveBeenCalledTimes(2);
  });
});

describe('invokeOrThrow', () => {
  it('returns the data of a successful call', async () => {
    const invoker = createToolInvoker(all);
    await expect(
      invoker.invokeOrThrow('billing_get_invoice', { id: 'inv_2' }, { transport: 'MCP' }),
    ).resolves.toEqual({ id: 'inv_2', total: 10 });
  });

  it('throws the ToolError of a failed call with code, status, details and hint preserved', async () => {
    const thrown = new ToolError('ENTITY_LOCKED', {
      status: 423,
      message: 'Invoice is locked',
      details: { lockedBy: 'u1' },
      hint: 'Retry after the lock expires',
    });
    const tool = makeTool({
      handler: () => {
        throw thrown;
      },
    });
    let caught: unknown;
    try {
      await createToolInvoker([tool]).invokeOrThrow('test_run', {}, { transport: 'MCP' });
    } catch (error) {
      caught = error;
    }
    expect(ToolError.is(caught)).toBe(true);
    expect(caught).toBeInstanceOf(ToolError);
    expect(caught).toMatchObject({
      code: 'ENTITY_LOCKED',
      status: 423,
      message: 'Invoice is locked',
      retryable: false,
      details: { lockedBy: 'u1' },
      hint: 'Retry after the lock expires',
    });
    expect(caught).toBe(thrown);
  });

  it('throws a pipeline failure such as VALIDATION_ERROR with its status', async () => {
    const invoker = createToolInvoker(all);
    await expect(
      invoker.invokeOrThrow('billing_get_invoice', { id: 1 }, { transport: 'MCP' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      details: { target: 'input' },
    });
  });

  it('throws a scrubbed INTERNAL_SERVER_ERROR whose cause stays in-process', async () => {
    const original = new Error('db at 10.0.0.4 failed');
    const tool = makeTool({
      handler: () => {
        throw original;
      },
    });
    const error = await createToolInvoker([tool])
      .invokeOrThrow('test_run', {}, { transport: 'MCP' })
      .catch((caught: ToolError) => caught);
    expect(error).toMatchObject({
      code: 'INTERNAL_SERVER_ERROR',
      status: 500,
      message: 'Internal server error',
    });
    expect((error as ToolError).cause).toBe(original);
  });

  it("rejects an unknown name with NOT_FOUND, whoever chose it (the application's own marked a programming error)", async () => {
    const invoker = createToolInvoker(all);
    const caller = invoker.invokeOrThrow('nope', {}, { transport: 'MCP', source: 'mcp' });
    await expect(caller).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(isProgrammingError(await caller.catch((error: unknown) => error))).toBe(false);
    const own = await invoker
      .invokeOrThrow('billing_get_invoic', {}, { transport: 'MCP' })
      .catch((error: unknown) => error);
    expect(own).toBeInstanceOf(ToolError);
    expect(own).toMatchObject({
      code: 'NOT_FOUND',
      message:
        'Unknown tool "billing_get_invoic". Did you mean "billing_get_invoice", "billing_list_invoices", "billing_void_invoice"?',
    });
    expect(isProgrammingError(own)).toBe(true);
  });
});

describe('names', () => {
  it('lists the names exposed on a transport: sorted, frozen, the same array on every call', () => {
    const invoker = createToolInvoker(all);
    const cli = invoker.names('CLI');
    expect(cli).toEqual(['admin_migrate', 'zeta_all']);
    expect(invoker.names('CLI')).toBe(cli);
    expect(Object.isFrozen(cli)).toBe(true);
    const mcp = invoker.names('MCP');
    expect(mcp).toEqual([...mcp].sort());
    expect(mcp).not.toContain('admin_migrate');
    expect(invoker.names('MCP')).toBe(mcp);
  });

  it('throws a TypeError for an unknown transport', () => {
    const names = () => createToolInvoker(all).names('HTTP' as any);
    expect(names).toThrow(TypeError);
    expect(names).toThrow(
      /^A call needs \{ transport \} set to one of MCP, AGENT, CLI; got "HTTP"\.$/,
    );
    const manifest = () => createToolInvoker(all).manifest(undefined as any);
    expect(manifest).toThrow(TypeError);
    expect(manifest).toThrow(
      /^A call needs \{ transport \} set to one of MCP, AGENT, CLI; got undefined\.$/,
    );
  });
});

describe('filtersListing', () => {
  const hides = { canActivate: () => true, canList: () => false };
  const admits = { canActivate: () => true };

  it('is false without a canList guard, and visible is then the manifest for any context', async () => {
    const invoker = createToolInvoker(all, { guards: [admits] });
    for (const transport of ['CLI', 'AGENT', 'MCP'] as const) {
      expect(catalogInvoker(invoker).catalog.filtersListing(transport)).toBe(false);
      expect(await invoker.visible(transport, { context: { tenantId: 'x' } })).toBe(
        invoker.manifest(transport),
      );
    }
  });

  it('is true where a tool exposed on the transport has a canList guard, and only there', async () => {
    class HiddenTools {
      hidden() {
        return {};
      }
    }
    defineToolClass(HiddenTools, {
      serviceName: 'admin',
      tools: [
        {
          methodName: 'hidden',
          action: 'hidden',
          method: 'GET',
          description: 'Listed to nobody',
          input: z.object({}),
          transports: ['CLI'],
          guards: [hides],
        },
      ],
    });
    const invoker = createToolInvoker([everywhere, HiddenTools]);
    expect(catalogInvoker(invoker).catalog.filtersListing('CLI')).toBe(true);
    expect(catalogInvoker(invoker).catalog.filtersListing('MCP')).toBe(false);
    expect((await invoker.visible('CLI')).map((tool) => tool.name)).toEqual(['zeta_all']);
    expect(await invoker.visible('MCP')).toBe(invoker.manifest('MCP'));
  });

  it('is true on every transport with a global canList guard', () => {
    const invoker = createToolInvoker(all, { guards: [hides] });
    for (const transport of ['CLI', 'AGENT', 'MCP'] as const) {
      expect(catalogInvoker(invoker).catalog.filtersListing(transport)).toBe(true);
    }
  });
});

describe('find', () => {
  it('returns the frozen descriptor of a tool exposed on a transport, or undefined', () => {
    const invoker = createToolInvoker(all);
    const descriptor = invoker.find('admin_migrate', 'CLI');
    expect(descriptor).toBe(invoker.manifest('CLI').find(({ name }) => name === 'admin_migrate'));
    expect(Object.isFrozen(descriptor)).toBe(true);
    expect(invoker.find('admin_migrate', 'MCP')).toBeUndefined();
    expect(invoker.find('nope', 'CLI')).toBeUndefined();
  });

  it('hands out no handler, guard or schema object: nothing to call around the pipeline', () => {
    const invoker = createToolInvoker(all);
    const descriptor = invoker.find('admin_migrate', 'CLI')!;
    expect(Object.keys(descriptor).sort()).toEqual(
      ['annotations', 'description', 'identity', 'inputSchema', 'name', 'transports'].sort(),
    );
    expect(Object.values(descriptor).some((value) => typeof value === 'function')).toBe(false);
  });

  it('keeps the compiled tool for the surface adapters only, through an internal lookup', () => {
    const invoker = createToolInvoker(all);
    expect(catalogInvoker(invoker).catalog.tool('admin_migrate', 'CLI')?.spec).toBe(migrate);
    expect(catalogInvoker(invoker).catalog.tool('admin_migrate', 'MCP')).toBeUndefined();
    expect(() => catalogInvoker({} as never).catalog.tool('admin_migrate', 'CLI')).toThrow(
      new TypeError(
        'Expected a toolwright invoker (createToolInvoker, or the ToolInvoker of an initialised ToolsModule).',
      ),
    );
  });
});

describe('manifest', () => {
  it('describes the tools exposed on a transport, in declaration order', () => {
    const manifest = createToolInvoker(all).manifest('MCP');
    expect(manifest.map((descriptor) => descriptor.name)).toEqual([
      'billing_get_invoice',
      'billing_void_invoice',
      'health_ping',
      'billing_list_invoices',
      'zeta_all',
      'audit_recent',
    ]);
    expect(
      createToolInvoker(all)
        .manifest('CLI')
        .map((descriptor) => descriptor.name),
    ).toEqual(['admin_migrate', 'zeta_all']);
  });

  it('gives frozen descriptors with exactly the documented fields', () => {
    const invoker = createToolInvoker(all);
    const manifest = invoker.manifest('MCP');
    expect(Object.isFrozen(manifest)).toBe(true);
    const [descriptor] = manifest;
    expect(Object.isFrozen(descriptor)).toBe(true);
    expect(Object.keys(descriptor).sort()).toEqual([
      'annotations',
      'description',
      'identity',
      'inputSchema',
      'name',
      'outputSchema',
      'transports',
    ]);
    expect(descriptor).toMatchObject({
      name: 'billing_get_invoice',
      description: 'Fetch one invoice',
      identity: { serviceName: 'billing', action: 'getInvoice', method: 'GET', scope: 'tenant' },
      transports: ['MCP', 'AGENT'],
      annotations: { readOnlyHint: true },
      inputSchema: {
        type: 'object',
        properties: { id: { type: 'string' } },
        required: ['id'],
      },
      outputSchema: { type: 'object', required: ['id', 'total'] },
    });
    const withoutOutput = manifest.find((entry) => entry.name === 'health_ping')!;
    expect('outputSchema' in withoutOutput).toBe(false);
  });

  it('returns the same array and schema objects on every call', () => {
    const invoker = createToolInvoker(all);
    const first = invoker.manifest('AGENT');
    const second = invoker.manifest('AGENT');
    expect(second).toBe(first);
    second.forEach((descriptor, index) => {
      expect(descriptor).toBe(first[index]);
      expect(descriptor.inputSchema).toBe(first[index].inputSchema);
      expect(descriptor.outputSchema).toBe(first[index].outputSchema);
    });
    // A tool exposed on two transports has one descriptor, shared.
    const mcpPing = invoker.manifest('MCP').find((entry) => entry.name === 'health_ping');
    expect(mcpPing).toBe(first.find((entry) => entry.name === 'health_ping'));
  });

  it('is deep-equal when the same registry is compiled twice', () => {
    const registry = defineToolRegistry({ defaults: all }).disable('health_ping');
    const a = createToolInvoker(registry);
    const b = createToolInvoker(registry);
    for (const transport of ['MCP', 'AGENT', 'CLI'] as const) {
      expect(b.manifest(transport)).toEqual(a.manifest(transport));
      expect(JSON.stringify(b.manifest(transport))).toBe(JSON.stringify(a.manifest(transport)));
      expect(b.names(transport)).toEqual(a.names(transport));
    }
    // The schema objects are cached per Zod schema, so they are shared across invokers too.
    expect(b.manifest('MCP')[0].inputSchema).toBe(a.manifest('MCP')[0].inputSchema);
  });
});
