import { describe, expect, it, jest } from '@jest/globals';
import { z } from 'zod';
import {
  createToolInvoker,
  ToolError,
  ToolsConfigurationError,
  type ToolCall,
  type ToolGuard,
  type ToolGuardContext,
} from '../../lib/core/index.js';
import { CORE_MESSAGES } from '../../lib/core/core.messages.js';
import {
  classTools,
  defineToolClass,
  getToolClassMetadata,
  isToolClass,
  TOOL_CLASS_METADATA,
} from '../../lib/core/tool-class.js';

function invoiceClass() {
  const constructed = jest.fn();
  class InvoiceTools {
    private readonly prefix = 'inv_';
    constructor() {
      constructed();
    }
    get({ input, context }: ToolCall<{ id: string }, { tenantId: string }>) {
      return { id: `${this.prefix}${input.id}`, tenantId: context.tenantId };
    }
    remove({ input }: ToolCall<{ id: string }>) {
      return { removed: `${this.prefix}${input.id}` };
    }
  }
  defineToolClass(InvoiceTools, {
    serviceName: 'billing',
    scope: 'tenant',
    meta: { team: 'payments' },
    context: z.object({ tenantId: z.string() }),
    tools: [
      {
        methodName: 'get',
        action: 'getInvoice',
        method: 'GET',
        description: 'Fetch one invoice',
        input: z.object({ id: z.string() }),
        output: z.object({ id: z.string(), tenantId: z.string() }),
      },
      {
        methodName: 'remove',
        action: 'voidInvoice',
        method: 'DELETE',
        description: 'Void one invoice',
        input: z.object({ id: z.string() }),
        meta: { audit: true },
        transports: ['MCP', 'CLI'],
      },
    ],
  });
  return { InvoiceTools, constructed };
}

describe('defineToolClass and classTools', () => {
  it('stores metadata under a non-enumerable static symbol, read only from the class itself', () => {
    const { InvoiceTools } = invoiceClass();
    expect(TOOL_CLASS_METADATA).toBe(Symbol.for('toolwright.toolClass'));
    expect(getToolClassMetadata(InvoiceTools)?.serviceName).toBe('billing');
    expect(Object.getOwnPropertyDescriptor(InvoiceTools, TOOL_CLASS_METADATA)?.enumerable).toBe(
      false,
    );
    expect(isToolClass(InvoiceTools)).toBe(true);
    class Sub extends InvoiceTools {}
    expect(isToolClass(Sub)).toBe(false);
    expect(isToolClass({})).toBe(false);
    expect(isToolClass(class Plain {})).toBe(false);
  });

  it('derives one frozen tool per method, in declaration order, with identity and context', () => {
    const { InvoiceTools } = invoiceClass();
    const tools = classTools(InvoiceTools);
    expect(Object.isFrozen(tools)).toBe(true);
    expect(tools.map((tool) => tool.name)).toEqual(['billing_get_invoice', 'billing_void_invoice']);
    const [get, remove] = tools;
    expect(Object.isFrozen(get)).toBe(true);
    expect(get).toMatchObject({
      kind: 'class',
      target: InvoiceTools,
      methodName: 'get',
      origin: 'InvoiceTools.get',
      transports: ['MCP', 'AGENT'],
      annotations: { readOnlyHint: true },
    });
    expect(get.identity).toStrictEqual({
      serviceName: 'billing',
      action: 'getInvoice',
      method: 'GET',
      scope: 'tenant',
      meta: { team: 'payments' },
    });
    expect(get.context).toBe(getToolClassMetadata(InvoiceTools)?.context);
    expect(remove.identity.meta).toStrictEqual({ audit: true });
    expect(remove.transports).toEqual(['MCP', 'CLI']);
    expect(remove.annotations).toStrictEqual({ readOnlyHint: false, destructiveHint: true });
  });

  it('returns the same array on every call, and recomputes after the metadata is redefined', () => {
    const { InvoiceTools } = invoiceClass();
    const first = classTools(InvoiceTools);
    expect(classTools(InvoiceTools)).toBe(first);
    defineToolClass(InvoiceTools, { serviceName: 'ledger', tools: [] });
    const second = classTools(InvoiceTools);
    expect(second).not.toBe(first);
    expect(second).toEqual([]);
  });

  it('refuses a class without metadata with a message that says how to fix it', () => {
    class Plain {}
    expect(() => classTools(Plain)).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.notToolClass('Plain')),
    );
  });

  it('merges class guards before method guards', () => {
    const classGuard = { canActivate: () => true };
    const methodGuard = { canActivate: () => true };
    class Guarded {
      run() {}
    }
    defineToolClass(Guarded, {
      serviceName: 'g',
      guards: [classGuard],
      tools: [
        {
          methodName: 'run',
          action: 'run',
          method: 'POST',
          description: 'x',
          input: z.object({}),
          guards: [methodGuard],
        },
      ],
    });
    expect(classTools(Guarded)[0].guards).toEqual([classGuard, methodGuard]);
  });

  it('gives a method that declares no input an empty object schema', async () => {
    class Clock {
      now() {
        return 'noon';
      }
    }
    defineToolClass(Clock, {
      serviceName: 'clock',
      tools: [{ methodName: 'now', action: 'now', method: 'GET', description: 'The time' }],
    });
    const invoker = createToolInvoker([Clock]);
    expect(invoker.find('clock_now', 'MCP')?.inputSchema).toMatchObject({
      type: 'object',
      properties: {},
    });
    await expect(invoker.invoke('clock_now', {}, { transport: 'AGENT' })).resolves.toEqual({
      ok: true,
      data: 'noon',
    });
  });

  it('has its bad declarations refused when compiled, naming Class.method', () => {
    class Bad {
      run() {}
    }
    defineToolClass(Bad, {
      serviceName: 'bad',
      tools: [
        {
          methodName: 'run',
          action: 'run',
          method: 'POST',
          description: 'x',
          input: z.string() as any,
        },
      ],
    });
    expect(() => createToolInvoker([Bad])).toThrow(
      new ToolsConfigurationError(CORE_MESSAGES.inputNotObject('bad_run', 'Bad.run')),
    );
  });
});

describe('an invoker over a tool class', () => {
  it('calls the method on one instance built with `new`, with `this` bound', async () => {
    const { InvoiceTools, constructed } = invoiceClass();
    const invoker = createToolInvoker([InvoiceTools]);
    const context = { tenantId: 'acme', extra: 'dropped' };
    const got = await invoker.invoke(
      'billing_get_invoice',
      { id: '1' },
      { transport: 'MCP', context },
    );
    const removed = await invoker.invoke(
      'billing_void_invoice',
      { id: '2' },
      { transport: 'CLI', context },
    );
    expect(got).toEqual({ ok: true, data: { id: 'inv_1', tenantId: 'acme' } });
    expect(removed).toEqual({ ok: true, data: { removed: 'inv_2' } });
    expect(constructed).toHaveBeenCalledTimes(1);
  });

  it('validates the class context and the method output like any tool', async () => {
    const { InvoiceTools } = invoiceClass();
    const invoker = createToolInvoker([InvoiceTools]);
    const noContext = await invoker.invoke(
      'billing_get_invoice',
      { id: '1' },
      { transport: 'MCP' },
    );
    expect(noContext.ok || noContext.error.details?.target).toBe('context');
  });

  it('reports a method the class does not have when the invoker is created', () => {
    class Missing {}
    defineToolClass(Missing, {
      serviceName: 'missing',
      tools: [
        {
          methodName: 'nope',
          action: 'nope',
          method: 'GET',
          description: 'x',
          input: z.object({}),
        },
      ],
    });
    expect(() => createToolInvoker([Missing])).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.noMethod('missing_nope', 'Missing.nope', 'Missing', 'nope'),
      ),
    );
  });

  it('honours class guards (objects and classes) and method guards, after global guards', async () => {
    const order: string[] = [];
    const guardConstructed = jest.fn();
    let allowClass = true;
    class ClassGuard implements ToolGuard {
      constructor() {
        guardConstructed();
      }
      canActivate({ tool, context, input, call }: ToolGuardContext) {
        order.push(`class:${tool.name}:${JSON.stringify(context)}:${JSON.stringify(input)}`);
        expect(call.name).toBe(tool.name);
        return allowClass;
      }
    }
    const methodGuard: ToolGuard = {
      canActivate: async ({ input }) => {
        order.push('method');
        return (input as { id: string }).id !== 'forbidden';
      },
    };
    const globalGuard: ToolGuard = {
      canActivate: () => {
        order.push('global');
        return true;
      },
    };
    const method = jest.fn((_call: ToolCall) => 'done');
    class Secured {
      run(call: ToolCall) {
        return method(call);
      }
    }
    defineToolClass(Secured, {
      serviceName: 'secured',
      context: z.object({ role: z.string() }),
      guards: [ClassGuard],
      tools: [
        {
          methodName: 'run',
          action: 'run',
          method: 'POST',
          description: 'x',
          input: z.object({ id: z.string() }),
          guards: [methodGuard],
        },
      ],
    });
    const invoker = createToolInvoker([Secured], { guards: [globalGuard] });
    const options = { transport: 'AGENT', context: { role: 'admin', x: 1 } } as const;

    await expect(invoker.invoke('secured_run', { id: 'ok' }, options)).resolves.toEqual({
      ok: true,
      data: 'done',
    });
    expect(order).toEqual(['global', 'class:secured_run:{"role":"admin"}:{"id":"ok"}', 'method']);

    const refusedByMethod = await invoker.invoke('secured_run', { id: 'forbidden' }, options);
    expect(refusedByMethod.ok || refusedByMethod.error.code).toBe('FORBIDDEN');

    allowClass = false;
    order.length = 0;
    const refusedByClass = await invoker.invoke('secured_run', { id: 'ok' }, options);
    expect(refusedByClass).toEqual({
      ok: false,
      error: {
        code: 'FORBIDDEN',
        message: 'The call to "secured_run" was refused by a guard.',
        retryable: false,
      },
    });
    expect(order).toEqual(['global', 'class:secured_run:{"role":"admin"}:{"id":"ok"}']);
    expect(method).toHaveBeenCalledTimes(1);
    expect(guardConstructed).toHaveBeenCalledTimes(1);
  });

  it('uses a custom binder when one is given', async () => {
    const { InvoiceTools, constructed } = invoiceClass();
    const bind = jest.fn((tool: { methodName: string }) => ({
      handler: () => `bound ${tool.methodName}`,
      guards: [{ canActivate: () => true }],
    }));
    const invoker = createToolInvoker([InvoiceTools], { bind });
    expect(bind).toHaveBeenCalledTimes(2);
    expect(constructed).not.toHaveBeenCalled();
    // The bound handler's string does not match the get method's output schema.
    await expect(
      invoker.invoke(
        'billing_get_invoice',
        { id: '1' },
        {
          transport: 'MCP',
          context: { tenantId: 't' },
        },
      ),
    ).resolves.toEqual({
      ok: false,
      error: expect.objectContaining({ code: 'INTERNAL_SERVER_ERROR' }),
    });
    await expect(
      invoker.invoke(
        'billing_void_invoice',
        { id: '1' },
        {
          transport: 'MCP',
          context: { tenantId: 't' },
        },
      ),
    ).resolves.toEqual({ ok: true, data: 'bound remove' });
  });

  it('refuses a binder that returns no handler', () => {
    const { InvoiceTools } = invoiceClass();
    expect(() => createToolInvoker([InvoiceTools], { bind: () => ({}) as any })).toThrow(
      new ToolsConfigurationError(
        CORE_MESSAGES.noBoundHandler('billing_get_invoice', 'InvoiceTools.get'),
      ),
    );
  });

  it('normalizes what a method throws', async () => {
    class Throwing {
      run() {
        throw new ToolError('CONFLICT', { message: 'busy' });
      }
    }
    defineToolClass(Throwing, {
      serviceName: 'throwing',
      tools: [
        { methodName: 'run', action: 'run', method: 'POST', description: 'x', input: z.object({}) },
      ],
    });
    const result = await createToolInvoker([Throwing]).invoke(
      'throwing_run',
      {},
      {
        transport: 'MCP',
      },
    );
    expect(result).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: 'busy', retryable: false },
    });
  });
});

describe('tags of a tool class', () => {
  it("add the class's tags to each method's, once each", () => {
    class OpsTools {
      purge() {
        return null;
      }
      ping() {
        return null;
      }
    }
    defineToolClass(OpsTools, {
      serviceName: 'ops',
      tags: ['admin'],
      tools: [
        {
          methodName: 'purge',
          action: 'purge',
          method: 'DELETE',
          description: 'Purge',
          tags: ['ops', 'admin'],
        },
        { methodName: 'ping', action: 'ping', method: 'GET', description: 'Ping' },
      ],
    });
    expect(classTools(OpsTools).map((tool) => [tool.name, tool.tags])).toEqual([
      ['ops_purge', ['admin', 'ops']],
      ['ops_ping', ['admin']],
    ]);
  });

  it('refuses scopes or tags given as one string on the class, not split into letters', () => {
    class OneString {
      run() {
        return null;
      }
    }
    defineToolClass(OneString, {
      serviceName: 'one',
      scopes: 'kb:read' as never,
      tools: [{ methodName: 'run', action: 'run', method: 'GET', description: 'Run' }],
    });
    expect(() => createToolInvoker([OneString])).toThrow(
      CORE_MESSAGES.scope('one_run', 'OneString.run', 'kb:read'),
    );
  });
});
